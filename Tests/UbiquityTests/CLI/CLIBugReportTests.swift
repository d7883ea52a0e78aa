import Foundation
import Testing
@testable import Ubiquity
import UbiquityTestSupport

/// `ubiq bug-report` and `ubiq scenario replay`, run as processes: what a device shows in the
/// field shows again from its report.
@Suite("CLI bug report")
struct CLIBugReportTests {
    func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    func kinds(_ findings: Any?) -> Set<String> {
        Set(((findings as? [[String: Any]]) ?? []).compactMap { $0["kind"] as? String })
    }

    /// `ubiq scenario replay ARGUMENTS`, which takes no cloud or device.
    func replay(_ sandbox: CLISandbox, _ arguments: [String]) throws -> UbiqResult {
        try UbiqProcess(binary: sandbox.binary, arguments: ["scenario", "replay"] + arguments, directory: sandbox.root).wait()
    }

    /// Values and natural keys the writer and the reader saved, searched for in the redacted archive.
    static let secrets = ["Dentist on Tuesday", "PIN is 4711", "Reader's own diary", "pin-note-key", "diary-of-reader-key"]

    /// A reader whose sync is blocked: the writer's first log is damaged (cut short, so part of
    /// its bytes are still there), so it is quarantined and the second waits for it.
    func blockedReader(_ sandbox: CLISandbox) throws -> (writer: String, reader: String) {
        let writer = try sandbox.initDevice("writer"), reader = try sandbox.initDevice("reader")
        try sandbox.succeed(["insert", "Note", "title=\(Self.secrets[0])"], device: "writer")
        try sandbox.succeed(["insert", "Note", "--id", Self.secrets[3], "title=\(Self.secrets[1])", "created=2019-03-14T15:09:26Z"], device: "writer")
        try sandbox.succeed(["insert", "Note", "--id", Self.secrets[4], "title=\(Self.secrets[2])", "created=2017-08-21T18:26:40Z"], device: "reader")
        let folder = try #require(FileManager.default.enumerator(atPath: sandbox.cloud)?.compactMap { $0 as? String }
            .first { $0.contains(writer + "/Notes/") && $0.hasSuffix(".1.cdt") && ($0 as NSString).lastPathComponent.hasPrefix("0000000001-") })
        let first = sandbox.cloud + "/" + folder
        let bytes = try Data(contentsOf: URL(fileURLWithPath: first))
        try bytes.prefix(bytes.count - 40).write(to: URL(fileURLWithPath: first))
        try sandbox.succeed(["sync"], device: "reader")
        return (writer, reader)
    }

    /// The block a device shows (its doctor's findings) comes back on the replay of its report,
    /// and the replay's sync waits as the device's did.
    @Test func aDamagedLogOfAnotherPeerBlocksTheReplayAsItBlockedTheDevice() throws {
        let sandbox = try CLISandbox()
        let (_, reader) = try blockedReader(sandbox)
        let field = try json(try sandbox.run(["doctor", "--json"], device: "reader").stdout)
        #expect(kinds(field["findings"]).isSuperset(of: ["missingPredecessor", "unreadableFile"]), "the field's block: \(field)")
        let fieldBlock = try StatusBlock(try json(try sandbox.succeed(["status", "--json"], device: "reader").stdout))
        #expect(fieldBlock.quarantined.count == 1, "the field's status: \(fieldBlock)")

        let archive = sandbox.root + "/report.zip"
        let before = try files(below: sandbox.root)
        let written = try sandbox.succeed(["bug-report", "--output", archive], device: "reader")
        #expect(written.stdout.hasPrefix("wrote the bug report of \(reader) to \(archive) ("), "\(written)")
        let after = try files(below: sandbox.root).filter { $0.key != "report.zip" }
        let changed = after.filter { before[$0.key] != $0.value }.keys.sorted() + before.keys.filter { after[$0] == nil }.sorted()
        #expect(changed.isEmpty, "nothing of the devices or the cloud was written: \(changed)")
        let unpacked = sandbox.root + "/unpacked"
        try FolderArchive.extract(archive, into: unpacked)
        let manifest = try json(try String(contentsOfFile: unpacked + "/manifest.json", encoding: .utf8))
        #expect(manifest["peerID"] as? String == reader && manifest["redacted"] as? Bool == false)
        let files = try #require(manifest["files"] as? [String])
        for name in ["device/device.plist", "status.json", "doctor.json", "model.plist", "versions.txt", "sync.log", "sync.json"] {
            #expect(files.contains(name) && FileManager.default.fileExists(atPath: unpacked + "/" + name), "\(name) in \(files)")
        }
        #expect(files.contains { $0.hasPrefix("cloud/default/iCloud.ubiquity.default/CoreData/") && $0.hasSuffix(".1.cdt") }, "the peers' logs")
        #expect(!files.contains { $0.hasSuffix(".lock") || $0.hasSuffix("-wal") || $0.hasSuffix("-shm") }, "no lock, no WAL: \(files)")
        #expect(kinds(try json(try String(contentsOfFile: unpacked + "/doctor.json", encoding: .utf8))["findings"]) == kinds(field["findings"]))
        let syncLog = try String(contentsOfFile: unpacked + "/sync.log", encoding: .utf8)
        #expect(syncLog.contains("skipped"), "the level-3 lines of the fresh sync: \(syncLog.prefix(500))")

        let run = try replay(sandbox, [archive, "--work", sandbox.root + "/replay", "--json"])
        #expect(run.succeeded, "\(run)")
        let replayed = try json(run.stdout)
        #expect(kinds(replayed["findings"]) == kinds(field["findings"]), "the same block at the desk: \(replayed)")
        let sync = try #require(replayed["sync"] as? [String: Any])
        #expect(sync["waiting"] as? Int == 1, "the second log waits again: \(sync)")
        #expect(try StatusBlock(try replayedStatus(sandbox, work: sandbox.root + "/replay")) == fieldBlock, "the same file set aside, for the same reason")
        let text = try replay(sandbox, [archive, "--work", sandbox.root + "/replay-text"])
        #expect(text.stdoutLines.contains { $0.hasPrefix("sync: ") && $0.contains("1 waiting") }, "\(text)")
        #expect(text.stdoutLines.contains { $0.hasPrefix("problem: ") && $0.contains("0000000001-") }, "the damaged log is named: \(text)")
    }

    /// A redacted report holds none of the saved values in any file, and still blocks alike.
    @Test func aRedactedReportHoldsNoSavedValueAndStillBlocks() throws {
        let sandbox = try CLISandbox()
        _ = try blockedReader(sandbox)
        let field = kinds(try json(try sandbox.run(["doctor", "--json"], device: "reader").stdout)["findings"])
        let fieldBlock = try StatusBlock(try json(try sandbox.succeed(["status", "--json"], device: "reader").stdout), reasons: false)
        // Every value the two stores hold: the reader's, and the writer's in the logs the report carries.
        let stored = try Self.storedValuePatterns(dump: sandbox.dump("reader")) + Self.storedValuePatterns(dump: sandbox.dump("writer"))
        #expect(stored.contains { $0.what == "1552576166" } && stored.contains { $0.what == "1503340000" }, "the dates among the values: \(stored.map(\.what))")
        let archive = sandbox.root + "/redacted.zip"
        let written = try sandbox.succeed(["bug-report", "--output", archive, "--redact"], device: "reader")
        #expect(written.stdout.contains(", redacted)"), "\(written)")

        let unpacked = sandbox.root + "/unpacked"
        try FolderArchive.extract(archive, into: unpacked)
        let files = FolderArchive.regularFiles(below: unpacked)
        #expect(files.contains { $0.hasSuffix("Store.sqlite") }, "the store is there: \(files)")
        let archived = try contents(below: unpacked) + [("the archive", try Data(contentsOf: URL(fileURLWithPath: archive)))]
        for (name, bytes) in archived {
            for secret in Self.secrets {
                #expect(bytes.range(of: Data(secret.utf8)) == nil, "\(name) holds '\(secret)'")
                #expect(bytes.range(of: Data(secret.utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] })) == nil, "\(name) holds '\(secret)' as UTF-16")
            }
            for (what, pattern) in stored { #expect(bytes.range(of: pattern) == nil, "\(name) holds the stored value \(what)") }
        }
        let manifest = try json(try String(contentsOfFile: unpacked + "/manifest.json", encoding: .utf8))
        #expect(manifest["redacted"] as? Bool == true && manifest["redaction"] is [String: Any])

        let run = try replay(sandbox, [archive, "--work", sandbox.root + "/replay", "--json"])
        #expect(run.succeeded, "\(run)")
        #expect(kinds(try json(run.stdout)["findings"]) == field, "the same block, redacted: \(run.stdout)")
        // The same file set aside (its redacted bytes give another reason).
        let replayedBlock = try StatusBlock(try replayedStatus(sandbox, work: sandbox.root + "/replay"), reasons: false)
        #expect(replayedBlock == fieldBlock && fieldBlock.quarantined.count == 1, "\(replayedBlock) against \(fieldBlock)")
    }

    /// A device waiting for an external-data file that never arrived waits for it again on
    /// the replay of its report, redacted or not (the file's redacted name is missing as well).
    @Test func aMissingExternalDataFileWaitsAgainOnReplay() throws {
        let sandbox = try CLISandbox()
        // containers/models/Photos.plist of this package (Tests/UbiquityTests/CLI/ is three folders down).
        let model = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("containers/models/Photos.plist").path
        try sandbox.succeed(["device", "init", "--user", "camera", "--model", model], device: "camera")
        try sandbox.succeed(["device", "init", "--user", "viewer", "--model", model], device: "viewer")
        let image = sandbox.root + "/photo.bin"
        try Data((0..<(200 << 10)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }).write(to: URL(fileURLWithPath: image))
        try sandbox.succeed(["insert", "Photo", "--id", "big", "image=@" + image, "--model", model], device: "camera")
        let folder = sandbox.cloud + "/default/iCloud.ubiquity.default/CoreData/.externalData/Notes"
        let stored = DirectoryEntry.names(folder, regularFilesOnly: true)
        #expect(stored.count == 1, "one external data file: \(stored)")
        for name in stored { try FileManager.default.removeItem(atPath: folder + "/" + name) }   // never arrived
        try sandbox.succeed(["sync", "--model", model], device: "viewer")
        let field = kinds(try json(try sandbox.run(["doctor", "--json", "--model", model], device: "viewer").stdout)["findings"])
        #expect(field.contains("missingExternalData"), "the field's wait: \(field)")
        let fieldBlock = try StatusBlock(try json(try sandbox.succeed(["status", "--json", "--model", model], device: "viewer").stdout))
        #expect(fieldBlock.externalDataWaits.count == 1, "the field's status: \(fieldBlock)")

        for redact in [false, true] {
            let archive = sandbox.root + "/report-\(redact).zip"
            try sandbox.succeed(["bug-report", "--output", archive, "--model", model] + (redact ? ["--redact"] : []), device: "viewer")
            let run = try replay(sandbox, [archive, "--work", sandbox.root + "/replay-\(redact)", "--json"])
            #expect(run.succeeded, "\(run)")
            let replayed = try json(run.stdout)
            #expect(kinds(replayed["findings"]) == field, "redacted \(redact): the same wait at the desk: \(replayed)")
            #expect((replayed["sync"] as? [String: Any])?["waiting"] as? Int == 1, "redacted \(redact): the log waits again: \(replayed)")
            // The same file waited for; redacted, under its redacted name.
            let block = try StatusBlock(try replayedStatus(sandbox, work: sandbox.root + "/replay-\(redact)", ["--model", model]))
            if redact {
                #expect(block.externalDataWaits.count == 1 && block.externalDataWaits != fieldBlock.externalDataWaits, "\(block)")
            } else {
                #expect(block == fieldBlock, "\(block) against \(fieldBlock)")
            }
        }
    }

    /// While `ubiq watch` owns the device, a report is written all the same, and its store
    /// holds what the owner's store holds — the last import too, still in the owner's WAL
    /// (whose log is then deleted from the cloud, so no sync of the replay brings it again).
    @Test func aReportOfADeviceAnotherProcessOwnsHoldsItsWholeStore() throws {
        let sandbox = try CLISandbox()
        try sandbox.initDevice("writer")
        try sandbox.initDevice("watcher")
        try sandbox.succeed(["insert", "Note", "--id", "first", "title=First"], device: "writer")
        try sandbox.succeed(["sync"], device: "watcher")
        let watch = try sandbox.start(["watch"], device: "watcher")
        defer { if watch.isRunning { watch.kill(); _ = watch.wait(timeout: 10) } }
        try #require(eventually { watch.stdoutSoFar.contains("watching ") || !watch.isRunning } && watch.isRunning, "the watch started")
        try sandbox.succeed(["insert", "Note", "--id", "second", "title=Second"], device: "writer")
        try #require(eventually { watch.stdoutSoFar.contains("Note/second") }, "the watch imported: \(watch.stdoutSoFar)")
        // The log is gone from the cloud: only the store can bring the import to the replay.
        let log = try #require(FileManager.default.enumerator(atPath: sandbox.cloud)?.compactMap { $0 as? String }
            .first { ($0 as NSString).lastPathComponent.hasPrefix("0000000002-") })
        try FileManager.default.removeItem(atPath: sandbox.cloud + "/" + log)

        let archive = sandbox.root + "/report.zip"
        try sandbox.succeed(["bug-report", "--output", archive], device: "watcher")
        #expect(watch.isRunning, "the owner goes on")
        let run = try replay(sandbox, [archive, "--work", sandbox.root + "/replay"])
        #expect(run.succeeded, "\(run)")
        let replayed = try UbiqProcess(binary: sandbox.binary, arguments: ["dump", "--json", "--device", sandbox.root + "/replay/device"],
                                       directory: sandbox.root).wait()
        let owner = try sandbox.dump("watcher")
        #expect(replayed.succeeded && replayed.stdout == owner, "the archived store is the owner's: \(replayed)")
        #expect(replayed.stdout.contains("Note/second"), "\(replayed.stdout)")
    }

    /// Every file below `folder` with its size and modification time, but SQLite's WAL and
    /// shared-memory files (a read-only connection to a store leaves them, empty).
    func files(below folder: String) throws -> [String: String] {
        var signatures: [String: String] = [:]
        for name in FolderArchive.regularFiles(below: folder) where !name.hasSuffix("-wal") && !name.hasSuffix("-shm") {
            let attributes = try FileManager.default.attributesOfItem(atPath: folder + "/" + name)
            signatures[name] = "\(attributes[.size] ?? 0) \((attributes[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0)"
        }
        return signatures
    }

    /// Every file below `folder` with its bytes, the entries of each zip in it (a baseline's,
    /// deflated) unpacked and listed too.
    func contents(below folder: String) throws -> [(String, Data)] {
        try FolderArchive.regularFiles(below: folder).flatMap { name -> [(String, Data)] in
            let path = folder + "/" + name
            let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
            guard name.hasSuffix(".zip") else { return [(name, bytes)] }
            let inner = folder + "/" + name + ".unpacked"
            try FolderArchive.extract(path, into: inner)
            defer { try? FileManager.default.removeItem(atPath: inner) }
            return [(name, bytes)] + (try contents(below: inner)).map { (name + "/" + $0.0, $0.1) }
        }
    }

    /// Polls `condition` until it holds or `seconds` pass; no fixed sleeps.
    func eventually(_ seconds: Double = 30, _ condition: () throws -> Bool) rethrows -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if try condition() { return true }
            usleep(20_000)
        }
        return try condition()
    }

    /// The demo container redacted: a baseline, relationships, a conflict and natural keys,
    /// none of whose values or keys is left in the archive, while its replay holds as many
    /// objects, every reference meeting its object, and the same conflict.
    @Test func theRedactedDemoKeepsItsShapeAndNoneOfItsValues() throws {
        let sandbox = try CLISandbox()
        let demo = sandbox.root + "/demo"
        try FileManager.default.copyItem(atPath: DemoContainerTests.repository + "/containers/demo", toPath: demo)
        let ipad = ["--cloud", demo + "/cloud", "--device", demo + "/devices/ipad"]
        func ubiq(_ arguments: [String]) throws -> UbiqResult {
            try UbiqProcess(binary: sandbox.binary, arguments: arguments, directory: sandbox.root).wait()
        }
        let original = try #require(try JSONSerialization.jsonObject(with: Data(try ubiq(["dump", "--json"] + ipad).stdout.utf8)) as? [[String: Any]])
        let archive = sandbox.root + "/demo.zip"
        #expect(try ubiq(["bug-report", "--redact", "--output", archive] + ipad).succeeded)
        let unpacked = sandbox.root + "/unpacked"
        try FolderArchive.extract(archive, into: unpacked)
        let manifest = try json(try String(contentsOfFile: unpacked + "/manifest.json", encoding: .utf8))
        #expect((manifest["redaction"] as? [String: Any])?["baselines"] as? Int == 1, "the baseline was redacted: \(manifest)")
        // Each title, name and body the demo saved, and each natural key.
        let secrets = ["Groceries for Sunday", "Shopping", "Errands", "Trip to Lisbon", "milk", "Home", "food", "groceries", "Folder/home"]
        for (name, bytes) in try contents(below: unpacked) where !name.hasSuffix("model.plist") {
            for secret in secrets { #expect(bytes.range(of: Data(secret.utf8)) == nil, "\(name) holds '\(secret)'") }
        }

        #expect(try replay(sandbox, [archive, "--work", sandbox.root + "/replay"]).succeeded)
        let replayDevice = ["--device", sandbox.root + "/replay/device"]
        let replayed = try #require(try JSONSerialization.jsonObject(with: Data(try ubiq(["dump", "--json"] + replayDevice).stdout.utf8)) as? [[String: Any]])
        func count(_ objects: [[String: Any]], _ entity: String) -> Int { objects.filter { $0["entity"] as? String == entity }.count }
        for entity in ["Note", "Folder", "Tag"] { #expect(count(replayed, entity) == count(original, entity), "\(entity)s: \(replayed)") }
        let ids = Set(replayed.compactMap { $0["id"] as? String })
        let targets = replayed.flatMap { object in
            ((object["relationships"] as? [String: Any]) ?? [:]).values.flatMap { ($0 as? [String]) ?? [($0 as? String)].compactMap { $0 } }
        }
        #expect(!targets.isEmpty && targets.allSatisfy(ids.contains), "every reference meets its object: \(targets) in \(ids)")
        let conflicts = try ubiq(["conflicts"] + replayDevice)
        #expect(conflicts.stdoutLines.count == 1 && conflicts.stdout.contains(".title [update]"), "the demo's conflict, redacted: \(conflicts)")
    }

    /// A device left on an older model version, whose peer saves on the newer one, shows on
    /// replay the same saves waiting for its upgrade, redacted or not.
    @Test func savesOfANewerModelVersionWaitAgainOnReplay() throws {
        let sandbox = try CLISandbox()
        try sandbox.initDevice("phone")
        try sandbox.initDevice("laptop")
        let old = ["--model", CLIModelMigrationTests.version1, "--content", "Library"]
        try sandbox.succeed(["insert", "Shelf", "--id", "s", "label=Fiction"] + old, device: "phone")
        try sandbox.succeed(["sync"] + old, device: "laptop")
        try sandbox.succeed(["model", "migrate", "--to", CLIModelMigrationTests.library, "--content", "Library"], device: "phone")
        try sandbox.succeed(["insert", "Book", "--id", "dune", "title=Dune", "--model", CLIModelMigrationTests.library, "--content", "Library"], device: "phone")
        try sandbox.succeed(["sync"] + old, device: "laptop")
        let field = try json(try sandbox.run(["doctor", "--json"] + old, device: "laptop").stdout)
        #expect(kinds(field["findings"]).contains("modelMix"), "the field's wait for an upgrade: \(field)")
        let fieldBlock = try StatusBlock(try json(try sandbox.succeed(["status", "--json"] + old, device: "laptop").stdout))
        #expect(fieldBlock.modelVersions.contains("phone~"), "the field's status: \(fieldBlock)")

        for redact in [false, true] {
            let archive = sandbox.root + "/report-\(redact).zip"
            try sandbox.succeed(["bug-report", "--output", archive] + old + (redact ? ["--redact"] : []), device: "laptop")
            let run = try replay(sandbox, [archive, "--work", sandbox.root + "/replay-\(redact)", "--json"])
            #expect(run.succeeded, "\(run)")
            let replayed = try json(run.stdout)
            #expect(kinds(replayed["findings"]) == kinds(field["findings"]), "redacted \(redact): \(replayed)")
            let messages = ((replayed["findings"] as? [[String: Any]]) ?? []).compactMap { $0["message"] as? String }
            #expect(messages.contains { $0.contains("1 transaction(s) there wait for an upgrade") }, "redacted \(redact): \(messages)")
            let block = try StatusBlock(try replayedStatus(sandbox, work: sandbox.root + "/replay-\(redact)", old))
            #expect(block == fieldBlock, "redacted \(redact): the same versions wait: \(block) against \(fieldBlock)")
        }
    }

    /// Two beds saved with one label on two devices merge under the model's uniqueness
    /// constraint; redacted, the store's record of that merge (the constrained values, the
    /// loser and its winner) holds neither the label nor the keys, and the replay keeps one bed.
    @Test func aRedactedUniquenessMergeHoldsNoValueOrKey() throws {
        let sandbox = try CLISandbox()
        let model = ["--model", DemoContainerTests.repository + "/Tests/Fixtures/models/Garden.xcdatamodeld"]
        try sandbox.succeed(["device", "init", "--user", "a"] + model, device: "a")
        try sandbox.succeed(["device", "init", "--user", "b"] + model, device: "b")
        try sandbox.succeed(["insert", "Bed", "--id", "bed-alpha", "label=Secret Bed"] + model, device: "a")
        try sandbox.succeed(["insert", "Bed", "--id", "bed-beta", "label=Secret Bed"] + model, device: "b")
        try sandbox.succeed(["sync"] + model, device: "a")
        try sandbox.succeed(["sync"] + model, device: "b")
        try sandbox.succeed(["sync"] + model, device: "a")
        let field = try sandbox.succeed(["dump"] + model, device: "a").stdout
        #expect(field.contains("Bed (1)"), "the beds merged: \(field)")

        let archive = sandbox.root + "/garden.zip"
        try sandbox.succeed(["bug-report", "--redact", "--output", archive] + model, device: "a")
        let unpacked = sandbox.root + "/unpacked"
        try FolderArchive.extract(archive, into: unpacked)
        for (name, bytes) in try contents(below: unpacked) where !name.hasSuffix("model.plist") {
            for secret in ["Secret Bed", "bed-alpha", "bed-beta"] { #expect(bytes.range(of: Data(secret.utf8)) == nil, "\(name) holds '\(secret)'") }
        }
        #expect(try replay(sandbox, [archive, "--work", sandbox.root + "/replay"]).succeeded)
        let replayed = try UbiqProcess(binary: sandbox.binary, arguments: ["dump", "--device", sandbox.root + "/replay/device"] + model,
                                       directory: sandbox.root).wait()
        #expect(replayed.succeeded && replayed.stdout.contains("Bed (1)"), "one bed, redacted: \(replayed)")
    }

    /// Wrong arguments: one line on stderr, a non-zero exit, no crash.
    @Test func wrongArgumentsGiveOneLineErrors() throws {
        let sandbox = try CLISandbox()
        try sandbox.initDevice("phone")
        let missing = try sandbox.run(["bug-report", "--output", sandbox.root + "/no/such/folder/report.zip"], device: "phone")
        #expect(missing.status != 0 && !missing.signaled, "\(missing)")
        #expect(missing.stderrLines == ["ubiq: error: cannot write the bug report: the folder \(sandbox.root)/no/such/folder does not exist"], "\(missing)")

        let text = sandbox.root + "/notes.txt"
        try Data("not an archive".utf8).write(to: URL(fileURLWithPath: text))
        let notZip = try replay(sandbox, [text, "--work", sandbox.root + "/w1"])
        #expect(notZip.status != 0 && !notZip.signaled && notZip.stderrLines == ["ubiq: error: \(text) is not a zip archive"], "\(notZip)")

        let absent = try replay(sandbox, [sandbox.root + "/absent.zip"])
        #expect(absent.status != 0 && !absent.signaled && absent.stderrLines == ["ubiq: error: no bug report at \(sandbox.root)/absent.zip"], "\(absent)")

        // A zip that is no bug report: a folder of other files archived.
        try FileManager.default.createDirectory(atPath: sandbox.root + "/other", withIntermediateDirectories: true)
        try Data("x".utf8).write(to: URL(fileURLWithPath: sandbox.root + "/other/readme.txt"))
        try FolderArchive.write(folder: sandbox.root + "/other", to: sandbox.root + "/other.zip")
        let other = try replay(sandbox, [sandbox.root + "/other.zip", "--work", sandbox.root + "/w2"])
        #expect(other.status != 0 && !other.signaled
                && other.stderrLines == ["ubiq: error: \(sandbox.root)/other.zip is not a bug report (it holds no manifest.json)"], "\(other)")
    }
}
