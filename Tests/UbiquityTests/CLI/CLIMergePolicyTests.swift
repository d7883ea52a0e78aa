import Foundation
import Testing

/// `update`/`delete --expect … --merge-policy P`: the conflicts of Docs/MergePolicies.md made
/// from the command line, each policy's outcome as the doc's table says.
@Suite("CLI merge policies")
struct CLIMergePolicyTests {
    static let policies = ["error", "store-trump", "object-trump", "overwrite", "rollback"]

    /// The store holds title "store", body "store body"; the change was made against title
    /// "read", body "read body" (the doc's attribute conflict).
    @Test(arguments: policies) func anAttributeConflict(policy: String) throws {
        let sandbox = try CLISandbox()
        try sandbox.initDevice("phone")
        _ = try sandbox.succeed(["insert", "Note", "--id", "n", "title=store", "body=store body"], device: "phone")
        let update = try sandbox.run(["update", "Note/n", "title=context", "--expect", "title=read", "--expect", "body=read body",
                                      "--merge-policy", policy], device: "phone")
        let expected: (title: String, body: String) = switch policy {
        case "object-trump": ("context", "store body")
        case "overwrite": ("context", "read body")
        default: ("store", "store body")
        }
        if policy == "error" {
            #expect(update.status == 1 && update.stdout.isEmpty, "\(update)")
            #expect(update.stderrLines == [#"ubiq: error: Note/n.title changed in the store since it was read: the store has "store", yours "context" (merge policy error: nothing saved)"#], "\(update)")
        } else {
            #expect(update.succeeded && update.stderr.isEmpty, "\(update)")
            #expect(update.stdoutLines == [#"conflict on Note/n.title resolved by \#(policy): the store had "store", yours "context"; now "\#(expected.title)""#], "\(update)")
        }
        let fetch = try sandbox.succeed(["fetch", "Note"], device: "phone")
        #expect(fetch.stdoutLines == [#"Note/n  title="\#(expected.title)" body="\#(expected.body)" created=nil pinned=false folder=nil tags=[]"#], "\(fetch)")
        // A policy that kept the store's values saved nothing at all: only the insert is in the cloud.
        let logs = try sandbox.succeed(["logs"], device: "phone").stdoutLines.count
        #expect(logs == (expected.title == "store" ? 1 : 2), "logs: \(logs)")
    }

    /// The doc's to-one conflict: read folder f1, set f3; the store moved it to f2.
    @Test(arguments: policies) func aToOneConflict(policy: String) throws {
        let sandbox = try CLISandbox()
        try sandbox.initDevice("phone")
        for folder in ["f1", "f2", "f3"] { _ = try sandbox.succeed(["insert", "Folder", "--id", folder, "name=\(folder)"], device: "phone") }
        _ = try sandbox.succeed(["insert", "Note", "--id", "n", "title=t", "folder=Folder/f2"], device: "phone")
        let update = try sandbox.run(["update", "Note/n", "folder=Folder/f3", "--expect", "folder=Folder/f1", "--merge-policy", policy], device: "phone")
        let winner = ["object-trump", "overwrite"].contains(policy) ? "Folder/f3" : "Folder/f2"
        if policy == "error" {
            #expect(update.status == 1 && update.stderrLines == ["ubiq: error: Note/n.folder changed in the store since it was read: the store has Folder/f2, yours Folder/f3 (merge policy error: nothing saved)"], "\(update)")
        } else {
            #expect(update.stdoutLines == ["conflict on Note/n.folder resolved by \(policy): the store had Folder/f2, yours Folder/f3; now \(winner)"], "\(update)")
        }
        let fetch = try sandbox.succeed(["fetch", "Note"], device: "phone")
        #expect(fetch.stdoutLines == [#"Note/n  title="t" body=nil created=nil pinned=false folder=\#(winner) tags=[]"#], "\(fetch)")
    }

    /// The doc's delete vs update: the delete was made against title "read"; the store has "store".
    @Test(arguments: policies) func aDeleteAgainstAChangedObject(policy: String) throws {
        let sandbox = try CLISandbox()
        try sandbox.initDevice("phone")
        _ = try sandbox.succeed(["insert", "Note", "--id", "n", "title=store"], device: "phone")
        let delete = try sandbox.run(["delete", "Note/n", "--expect", "title=read", "--merge-policy", policy], device: "phone")
        let deleted = ["object-trump", "overwrite"].contains(policy)
        switch policy {
        case "error":
            #expect(delete.status == 1 && delete.stderrLines == [#"ubiq: error: Note/n changed in the store since it was read (title "store" in the store, read "read"): your delete conflicts (merge policy error: nothing saved)"#], "\(delete)")
        case _ where deleted:
            #expect(delete.stdoutLines == ["conflict on Note/n resolved by \(policy): deleted"], "\(delete)")
        default:
            #expect(delete.stdoutLines == [#"conflict on Note/n resolved by \#(policy): the delete was dropped; title="store""#], "\(delete)")
        }
        let fetch = try sandbox.succeed(["fetch", "Note"], device: "phone")
        #expect(fetch.stdoutLines.count == (deleted ? 0 : 1), "\(fetch)")
    }

    /// When the store holds what was expected there is no conflict, whatever the policy.
    @Test func aMetExpectationIsAnOrdinaryChange() throws {
        let sandbox = try CLISandbox()
        try sandbox.initDevice("phone")
        _ = try sandbox.succeed(["insert", "Note", "--id", "n", "title=old"], device: "phone")
        let update = try sandbox.succeed(["update", "Note/n", "title=new", "--expect", "title=old"], device: "phone")
        #expect(update.stdout.isEmpty && update.stderr.isEmpty, "\(update)")
        #expect(try sandbox.succeed(["get", "Note/n", "title"], device: "phone").stdoutLines == [#""new""#])
    }

    /// `sync --import-resolver`: the loser of a concurrent overwrite saved again and taken by
    /// every peer, or (the default) the winner kept.
    @Test(arguments: ["keep-winner", "use-loser"]) func anImportResolver(resolver: String) throws {
        let sandbox = try CLISandbox()
        try sandbox.initDevice("phone")
        try sandbox.initDevice("laptop")
        _ = try sandbox.succeed(["insert", "Note", "--id", "list", "title=Groceries"], device: "phone")
        _ = try sandbox.succeed(["sync"], device: "laptop")
        _ = try sandbox.succeed(["update", "Note/list", "title=Shopping"], device: "phone")
        _ = try sandbox.succeed(["update", "Note/list", "title=Errands"], device: "laptop")
        let sync = try sandbox.succeed(["sync", "--import-resolver", resolver], device: "phone")
        #expect(sync.stdoutLines == ["exported 0, imported 1 (0 inserted, 1 updated, 0 deleted), 0 waiting, 0 quarantined"], "\(sync)")
        let conflicts = try sandbox.succeed(["conflicts"], device: "phone").stdoutLines
        #expect(conflicts.count == 1 && conflicts[0].hasPrefix(#"#1 Note/list.title [update]: "Errands" (laptop~"#), "\(conflicts)")
        _ = try sandbox.succeed(["sync"], device: "laptop")
        let expected = resolver == "use-loser" ? #""Shopping""# : #""Errands""#
        for device in ["phone", "laptop"] {
            #expect(try sandbox.succeed(["get", "Note/list", "title"], device: device).stdoutLines == [expected], "\(device)")
        }
        #expect(try sandbox.dump("phone") == sandbox.dump("laptop"))
    }

    /// `watch --import-resolver use-loser`: the long-running peer gives the loser back too.
    @Test func aWatchWithAnImportResolver() throws {
        let sandbox = try CLISandbox()
        try sandbox.initDevice("phone")
        try sandbox.initDevice("laptop")
        _ = try sandbox.succeed(["insert", "Note", "--id", "list", "title=Groceries"], device: "phone")
        _ = try sandbox.succeed(["sync"], device: "laptop")
        _ = try sandbox.succeed(["update", "Note/list", "title=Shopping"], device: "phone")
        _ = try sandbox.succeed(["update", "Note/list", "title=Errands"], device: "laptop")
        let watch = try sandbox.start(["watch", "--import-resolver", "use-loser"], device: "phone")
        defer { if watch.isRunning { watch.kill(); _ = watch.wait(timeout: 10) } }
        // Polled with a deadline: the watch imports, restores the loser and exports it.
        let deadline = Date().addingTimeInterval(30)
        var title = ""
        while Date() < deadline, watch.isRunning {
            _ = try sandbox.succeed(["sync"], device: "laptop")
            title = try sandbox.succeed(["get", "Note/list", "title"], device: "laptop").stdout
            if title == "\"Shopping\"\n" { break }
            usleep(50_000)
        }
        #expect(title == "\"Shopping\"\n", "\(watch.stdoutSoFar)")
        watch.send(SIGTERM)
        #expect(watch.wait(timeout: 20).status == 0)
    }

    @Test func badExpectationsAreOneLineErrors() throws {
        let sandbox = try CLISandbox()
        try sandbox.initDevice("phone")
        _ = try sandbox.succeed(["insert", "Note", "--id", "n", "title=old"], device: "phone")
        let cases: [([String], String)] = [
            (["--expect", "nope=1"], "ubiq: error: entity Note has no property 'nope'"),
            (["--expect", "tags=Tag/a"], "ubiq: error: Note.tags is a to-many relationship: only attributes and to-one relationships can be expected"),
            (["--expect", "pinned=maybe"], "ubiq: error: invalid value 'maybe' for Note.pinned: expected a boolean: true/false, yes/no, 1/0 (or nil)"),
            (["--expect", "title=a", "--expect", "title=b"], "ubiq: error: --expect names title twice"),
            (["--merge-policy", "loser-wins"], "ubiq: error: The value 'loser-wins' is invalid for '--merge-policy <policy>'. Please provide one of 'error', 'store-trump', 'object-trump', 'overwrite' or 'rollback'. (see 'ubiq help update')"),
        ]
        for (options, message) in cases {
            let result = try sandbox.run(["update", "Note/n", "title=x"] + options, device: "phone")
            #expect(result.status != 0 && !result.signaled && result.stderrLines == [message], "\(options): \(result)")
        }
        #expect(try sandbox.succeed(["get", "Note/n", "title"], device: "phone").stdoutLines == [#""old""#], "nothing was saved")
    }
}
