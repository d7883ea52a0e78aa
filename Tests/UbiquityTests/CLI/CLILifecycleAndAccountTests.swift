import Foundation
import Testing

/// The lifecycle and account commands through real processes: store, baseline, gc, rebuild,
/// remove-content, account, migrate, conflicts.
@Suite("CLI lifecycle and accounts")
struct CLILifecycleAndAccountTests {
    @Test func lifecycleCommandsTellWhatHappened() throws {
        let sandbox = try CLISandbox()
        try sandbox.initDevice("phone")
        try sandbox.initDevice("laptop")
        for index in 0..<3 { try sandbox.succeed(["insert", "Note", "--id", "n\(index)", "title=note \(index)"], device: "phone") }

        // A new device goes through the fallback and says so.
        let store = try sandbox.succeed(["store"], device: "laptop").stdoutLines
        #expect(store.contains("event: did-change store added → fallback store"), "\(store)")
        #expect(store.contains { $0.hasPrefix("store: fallback — ") })
        #expect(store.suffix(3).first == "event: did-change initialImportCompleted(4) → account store" || store.contains("event: did-change initialImportCompleted(4) → account store"))
        #expect(store.last?.hasPrefix("now: account — ") == true)
        #expect(try sandbox.succeed(["store"], device: "laptop").stdoutLines.first == "event: did-change store added → account store", "later launches open the account store")

        #expect(try sandbox.succeed(["baseline", "show"], device: "phone").stdout == "no baseline\n")
        let roll = try sandbox.succeed(["baseline", "roll"], device: "phone").stdout
        #expect(roll.hasPrefix("not rolled: only 3 of the required 100 transactions"), "\(roll)")
        #expect(try sandbox.succeed(["baseline", "roll", "--force"], device: "phone").stdout.hasPrefix("rolled: "))
        let shown = try JSONSerialization.jsonObject(with: Data(try sandbox.succeed(["baseline", "show", "--json"], device: "phone").stdout.utf8)) as? [String: Any]
        #expect((shown?["kv"] as? String)?.hasSuffix(":3") == true)

        try sandbox.succeed(["sync"], device: "laptop")
        let gc = try sandbox.succeed(["gc", "--json"], device: "phone").stdout
        let report = try #require(try JSONSerialization.jsonObject(with: Data(gc.utf8)) as? [String: Any])
        #expect((report["deleted"] as? [String])?.count == 3, "the laptop passed them: \(gc)")

        // Rebuild: the same objects, and the next number continues.
        let rebuilt = try sandbox.succeed(["rebuild"], device: "phone").stdout
        #expect(rebuilt.contains(":3"), "\(rebuilt)")
        try sandbox.succeed(["insert", "Note", "--id", "after", "title=after the rebuild"], device: "phone")
        try sandbox.succeed(["sync"], device: "laptop")
        #expect(try sandbox.dump("laptop") == sandbox.dump("phone"))

        // remove-content wants a confirmation, then empties everybody.
        let refused = try sandbox.run(["remove-content"], device: "phone")
        #expect(!refused.succeeded && refused.stderr.contains("pass --yes"))
        try sandbox.succeed(["remove-content", "--yes"], device: "phone")
        #expect(try sandbox.succeed(["sync"], device: "laptop").stdout.hasPrefix("content removed by another peer"))
        #expect(try sandbox.dump("laptop") == "[]\n")
    }

    @Test func accountsMigrationAndConflicts() throws {
        let sandbox = try CLISandbox()
        try sandbox.initDevice("phone")
        try sandbox.initDevice("laptop")
        try sandbox.succeed(["account", "sign-out"], device: "phone")
        #expect(try sandbox.succeed(["account", "show"], device: "phone").stdoutLines.first == "account: (signed out)")
        try sandbox.succeed(["insert", "Note", "--id", "offline", "title=written signed out"], device: "phone")
        #expect(try sandbox.succeed(["sync"], device: "phone").stdout.hasPrefix("signed out"))

        try sandbox.succeed(["account", "sign-in", "default"], device: "phone")
        let accountDump = try sandbox.run(["dump", "--json"], device: "phone")
        #expect(accountDump.stderrLines == ["ubiq: error: this device has no store of account 'default' yet (nothing was saved or synced there)"],
                "the account's store does not hold the local store's objects: \(accountDump)")
        let migrated = try sandbox.succeed(["migrate", "--from-local"], device: "phone").stdout
        #expect(migrated.hasPrefix("copied 1 object(s)"), "\(migrated)")
        #expect(try sandbox.succeed(["migrate", "--from-local"], device: "phone").stdout.hasPrefix("copied 0 object(s) in 0 transaction(s); 1 already present"))
        try sandbox.succeed(["sync"], device: "laptop")
        #expect(try sandbox.dump("laptop") == sandbox.dump("phone"))

        // A conflict, listed and restored.
        try sandbox.succeed(["update", "Note/offline", "title=from the phone"], device: "phone")
        try sandbox.succeed(["update", "Note/offline", "title=from the laptop"], device: "laptop")
        try sandbox.succeed(["sync"], device: "phone")
        try sandbox.succeed(["sync"], device: "laptop")
        let listed = try sandbox.succeed(["conflicts", "--json"], device: "laptop").stdout
        let conflicts = try #require(try JSONSerialization.jsonObject(with: Data(listed.utf8)) as? [[String: Any]])
        let title = try #require(conflicts.first { $0["property"] as? String == "title" })
        let loser = try #require(title["loser"] as? String)
        let id = try #require(title["id"] as? Int)
        try sandbox.succeed(["conflicts", "restore", String(id)], device: "laptop")
        try sandbox.succeed(["sync"], device: "phone")
        let fetched = try sandbox.succeed(["fetch", "Note", "--json"], device: "phone").stdout
        #expect(fetched.contains("\"title\":\"\(loser)\""), "the restored loser reached the other device: \(fetched)")
    }
}
