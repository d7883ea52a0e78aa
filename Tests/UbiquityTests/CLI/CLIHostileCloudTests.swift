import Foundation
import Testing
@testable import Ubiquity

/// The CLI in front of a hostile or mistaken cloud: nothing in the cloud makes a
/// command wait, `sync` says when a step failed, and a device never wanders into another cloud.
@Suite("CLI and a hostile cloud")
struct CLIHostileCloudTests {
    /// FIFOs where a log, a receipt and the content epoch belong: every command finishes.
    @Test func fifosInTheCloudBlockNoCommand() throws {
        let sandbox = try CLISandbox()
        try sandbox.initDevice("writer")
        try sandbox.initDevice("reader")
        try sandbox.succeed(["insert", "Note", "--id", "n1", "title=One"], device: "writer")
        let root = sandbox.cloud + "/default/iCloud.ubiquity.default/CoreData"
        let hash = try #require(DirectoryEntry.names(root + "/" + (DirectoryEntry.names(root).first { $0.hasPrefix("writer~") } ?? "") + "/Notes").first)
        let stranger = root + "/stranger~00000000-0000-0000-0000-00000000000f/Notes/" + hash
        try AtomicFile.makeDirectory(stranger)
        try AtomicFile.makeDirectory(root + "/.content")
        for path in [stranger + "/" + TransactionLog.fileName(number: 1), stranger + "/receipt.0.cdt", root + "/.content/Notes.plist"] {
            #expect(mkfifo(path, 0o644) == 0)
        }
        for command in [["sync"], ["status"], ["peers"], ["doctor"], ["sync", "--json"]] {
            let result = try sandbox.run(command, device: "reader", timeout: 30)
            #expect(!result.timedOut && !result.signaled, "\(result)")
            // doctor's status says it found the FIFOs; every other command just works.
            #expect(command == ["doctor"] ? result.status == 1 : result.succeeded, "\(result)")
        }
        #expect(try sandbox.run(["fetch", "Note"], device: "reader").stdout.contains("Note/n1"))
        let doctor = try sandbox.run(["doctor"], device: "reader")
        #expect(doctor.stdout.contains("is a FIFO") && doctor.status == 1, "\(doctor)")
    }

    /// A cloud that cannot be written: the summary line prints, and the exit status says the
    /// export step failed.
    @Test func syncExitsNonZeroWhenTheExportFails() throws {
        let sandbox = try CLISandbox()
        try sandbox.initDevice("phone")
        let parent = sandbox.cloud + "/default/iCloud.ubiquity.default"
        try AtomicFile.makeDirectory(parent)
        try AtomicFile.write(Array("not a folder".utf8), to: parent + "/CoreData")   // the ubiquity root is a file
        try sandbox.succeed(["insert", "Note", "--id", "n1", "title=One"], device: "phone")   // the save itself is kept
        let sync = try sandbox.run(["sync"], device: "phone")
        #expect(sync.status == 1, "\(sync)")
        #expect(sync.stdoutLines.first?.hasPrefix("exported 0") == true, "the summary line still prints: \(sync)")
        #expect(sync.stdout.contains("1 in outbox"), "\(sync)")
        #expect(sync.stderrLines.count == 1 && sync.stderr.hasPrefix("ubiq: error: the export step failed"), "\(sync)")
        try FileManager.default.removeItem(atPath: parent + "/CoreData")
        let healed = try sandbox.run(["sync"], device: "phone")
        #expect(healed.succeeded && healed.stdout.hasPrefix("exported 1"), "\(healed)")
    }

    /// A device remembers its cloud: a mistyped --cloud is refused with both paths and the way
    /// to move on purpose, and no new cloud appears; `device move-cloud` moves it.
    @Test func aMistypedCloudIsRefusedAndAMoveIsOnPurpose() throws {
        let sandbox = try CLISandbox()
        try sandbox.initDevice("phone")
        try sandbox.succeed(["insert", "Note", "--id", "n1", "title=One"], device: "phone")
        let typo = sandbox.root + "/clowd"
        let arguments = ["--device", sandbox.device("phone"), "--cloud", typo]
        for command in [["sync"], ["insert", "Note", "title=Two"], ["status"], ["doctor"]] {
            let refused = try UbiqProcess(binary: sandbox.binary, arguments: command + arguments, directory: sandbox.root).wait(timeout: 30)
            #expect(refused.status != 0 && refused.stderrLines.count == 1, "\(refused)")
            #expect(refused.stderr.contains(sandbox.cloud) && refused.stderr.contains(typo) && refused.stderr.contains("ubiq device move-cloud"), "\(refused)")
        }
        #expect(!FileManager.default.fileExists(atPath: typo), "no new, empty cloud was started")
        // The same cloud, spelled another way, is the same cloud.
        let spelled = try UbiqProcess(binary: sandbox.binary, arguments: ["sync", "--device", sandbox.device("phone"), "--cloud", sandbox.root + "/./cloud/"],
                                      directory: sandbox.root).wait(timeout: 30)
        #expect(spelled.succeeded, "\(spelled)")

        // Moving the cloud folder for real, and saying so.
        #expect(rename(sandbox.cloud, typo) == 0)
        let moved = try UbiqProcess(binary: sandbox.binary, arguments: ["device", "move-cloud", typo, "--device", sandbox.device("phone")],
                                    directory: sandbox.root).wait(timeout: 30)
        #expect(moved.succeeded && moved.stdout.contains(typo), "\(moved)")
        let after = try UbiqProcess(binary: sandbox.binary, arguments: ["fetch", "Note"] + arguments, directory: sandbox.root).wait(timeout: 30)
        #expect(after.succeeded && after.stdout.contains("Note/n1"), "\(after)")
    }

    /// Given no cloud (no --cloud, no $UBIQUITY_CLOUD), a command works on the cloud the device
    /// recorded, from any folder and without a word; a cloud given in the environment that is
    /// not the device's is refused as --cloud is; `device init` keeps `./ubiquity-cloud`.
    @Test func aCommandGivenNoCloudUsesTheDevicesOwn() throws {
        let sandbox = try CLISandbox()
        try sandbox.initDevice("phone")
        try sandbox.initDevice("laptop")
        let elsewhere = sandbox.root + "/elsewhere"
        try AtomicFile.makeDirectory(elsewhere)
        func run(_ command: [String], _ device: String, environment: [String: String] = [:]) throws -> UbiqResult {
            try UbiqProcess(binary: sandbox.binary, arguments: command + ["--device", sandbox.device(device)],
                            directory: elsewhere, environment: environment).wait(timeout: 30)
        }
        let inserted = try run(["insert", "Note", "--id", "n1", "title=One"], "phone")
        #expect(inserted.succeeded && inserted.stderr.isEmpty, "\(inserted)")
        let synced = try run(["sync"], "laptop")
        #expect(synced.succeeded && synced.stderr.isEmpty, "\(synced)")
        let fetched = try run(["fetch", "Note"], "laptop")
        #expect(fetched.succeeded && fetched.stdout.contains("Note/n1"), "the phone's save came through the recorded cloud: \(fetched)")
        #expect(!FileManager.default.fileExists(atPath: elsewhere + "/ubiquity-cloud"), "no cloud was started in the working folder")

        let typo = sandbox.root + "/clowd"
        let refused = try run(["sync"], "laptop", environment: ["UBIQUITY_CLOUD": typo])
        #expect(!refused.succeeded && refused.stderrLines.count == 1 && refused.stderr.contains("ubiq device move-cloud \(typo)"), "\(refused)")
        #expect(!FileManager.default.fileExists(atPath: typo))

        let made = try UbiqProcess(binary: sandbox.binary, arguments: ["device", "init", "--device", sandbox.device("tablet")],
                                   directory: elsewhere).wait(timeout: 30)
        #expect(made.succeeded, "\(made)")
        #expect(try Device.load(from: sandbox.device("tablet")).cloud == elsewhere + "/ubiquity-cloud")
    }

    /// A device and its cloud copied together still belong together (`device.plist` keeps the
    /// cloud relative to the device's folder), as `cp -r containers/demo /tmp/demo` needs; the
    /// copy's device still refuses the original cloud, which is another folder.
    @Test func aDeviceCopiedWithItsCloudStillBelongsToIt() throws {
        let sandbox = try CLISandbox()
        try sandbox.initDevice("phone")
        try sandbox.succeed(["insert", "Note", "--id", "n1", "title=One"], device: "phone")
        let copy = sandbox.root + "-copy"
        defer { try? FileManager.default.removeItem(atPath: copy) }
        try FileManager.default.copyItem(atPath: sandbox.root, toPath: copy)
        let device = copy + sandbox.device("phone").dropFirst(sandbox.root.count)
        let fetched = try UbiqProcess(binary: sandbox.binary, arguments: ["fetch", "Note", "--device", device, "--cloud", copy + "/cloud"],
                                      directory: copy).wait(timeout: 30)
        #expect(fetched.succeeded && fetched.stdout.contains("Note/n1"), "\(fetched)")
        let crossed = try UbiqProcess(binary: sandbox.binary, arguments: ["status", "--device", device, "--cloud", sandbox.cloud],
                                      directory: copy).wait(timeout: 30)
        #expect(!crossed.succeeded && crossed.stderr.contains("ubiq device move-cloud"), "\(crossed)")
    }

    /// A damaged log that no peer has synced since it appeared: doctor reads it and names it.
    @Test func doctorNamesAnUnreadableLogNoPeerHasSeen() throws {
        let sandbox = try CLISandbox()
        let peerID = try sandbox.initDevice("phone")
        try sandbox.succeed(["insert", "Note", "--id", "n1", "title=One"], device: "phone")
        let root = sandbox.cloud + "/default/iCloud.ubiquity.default/CoreData"
        let hash = try #require(DirectoryEntry.names(root + "/" + peerID + "/Notes").first)
        let stranger = "stranger~00000000-0000-0000-0000-00000000000f"
        try AtomicFile.makeDirectory(root + "/" + stranger + "/Notes/" + hash)
        let name = TransactionLog.fileName(number: 1)
        try AtomicFile.write(Array("garbage".utf8), to: root + "/" + stranger + "/Notes/" + hash + "/" + name)
        // A file that looks like XML and is not text: libxml2's own complaints never reach stderr.
        try AtomicFile.write([UInt8(ascii: "<")] + [UInt8](repeating: 0, count: 700), to: root + "/" + stranger + "/Notes/" + hash + "/" + TransactionLog.fileName(number: 2))
        let sync = try sandbox.run(["sync"], device: "phone")
        #expect(sync.succeeded && sync.stdout.contains("2 quarantined"), "\(sync)")
        #expect(!sync.stderr.contains("encoding error") && !sync.stderr.contains("I/O error"), "\(sync)")
        let doctor = try sandbox.run(["doctor", "--json"], device: "phone")
        let findings = try #require((try JSONSerialization.jsonObject(with: Data(doctor.stdout.utf8)) as? [String: Any])?["findings"] as? [[String: Any]])
        #expect(findings.contains { $0["kind"] as? String == "unreadableFile" && ($0["message"] as? String ?? "").contains("\(stranger)/Notes/\(hash)/\(name)") },
                "\(findings)")
    }
}
