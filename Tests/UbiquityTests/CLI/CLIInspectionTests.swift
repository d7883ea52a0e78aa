import Foundation
import Testing
@testable import Ubiquity
import UbiquityTestSupport

/// status, peers, logs, doctor and watch, run as processes against real containers.
@Suite("CLI inspection")
struct CLIInspectionTests {
    func json(_ text: String) throws -> Any { try JSONSerialization.jsonObject(with: Data(text.utf8)) }

    /// The demo container, made afresh by its script, inspected at every log level.
    @Test func theDemoContainerAtEveryLogLevel() throws {
        let sandbox = try CLISandbox()
        let demo = sandbox.root + "/demo"
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("scripts/make-demo-container.sh").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [script, demo]
        process.environment = ProcessInfo.processInfo.environment.merging(["UBIQ": sandbox.binary]) { $1 }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "the demo script runs")
        let iphone = ["--cloud", demo + "/cloud", "--device", demo + "/devices/iphone"]
        func ubiq(_ arguments: [String], level: Int = 0) throws -> UbiqResult {
            try UbiqProcess(binary: sandbox.binary, arguments: arguments + iphone + ["--log-level", String(level)], directory: sandbox.root).wait()
        }

        for level in 0...3 {
            let status = try ubiq(["status", "--json"], level: level)
            #expect(status.succeeded, "\(status)")
            let report = try #require(try json(status.stdout) as? [String: Any])
            let container = try #require(report["container"] as? [String: Any])
            #expect((container["peers"] as? [Any])?.count == 3, "three peers")
            #expect(container["baseline"] is [String: Any], "a baseline")
            #expect((container["quarantined"] as? [Any])?.count == 1, "one quarantined file")
            let states = Set(((container["files"] as? [[String: Any]]) ?? []).compactMap { $0["state"] as? String })
            #expect(states.contains("Current"))
            #expect((report["device"] as? [String: Any])?["store"] as? String == "account")

            let peers = try ubiq(["peers"], level: level)
            #expect(peers.stdoutLines.count == 3 && peers.stdoutLines.contains { $0.contains("(this device)") })

            let listed = try ubiq(["logs", "list"], level: level)
            let first = try #require(listed.stdoutLines.first?.split(separator: " ").last.map(String.init))
            let shown = try ubiq(["logs", "show", first], level: level)
            #expect(shown.stdout.hasPrefix("transaction "), "\(shown)")
            let shownJSON = try #require(try json(try ubiq(["logs", "show", first, "--json"], level: level).stdout) as? [String: Any])
            #expect(shownJSON["peerID"] is String && shownJSON["stamp"] is String)
            #expect(try ubiq(["logs", "show", first, "--plist", "xml"], level: level).stdout.contains("<key>checksum</key>"))

            let doctor = try ubiq(["doctor"], level: level)
            #expect(doctor.stdout.contains("0000000099-00000000-0000-0000-0000-000000000000.1.cdt cannot be used"), "the damaged log, read again: \(doctor)")

            // The verbose level tells what the import considered and skipped; level 0 does not.
            let sync = try ubiq(["sync"], level: level)
            #expect(sync.succeeded)
            #expect(sync.stderr.contains("skipped") == (level == 3), "level \(level): \(sync.stderr.prefix(300))")
        }
        let conflicts = try #require(try json(try ubiq(["conflicts", "--json"]).stdout) as? [[String: Any]])
        #expect(conflicts.contains { $0["property"] as? String == "title" }, "the demo's conflict")
    }

    /// A container with every kind of problem doctor knows; --fix repairs the safe ones.
    @Test func doctorFindsEveryKindOfProblem() throws {
        let sandbox = try CLISandbox()
        let cloud = TestCloudAt(root: sandbox.root)
        let examined = try cloud.peer("examined"), gone = try cloud.peer("gone"), skewed = try cloud.peer("skewed")
        let writer = try cloud.peer("writer")
        _ = try gone.sync()                                   // a receipt that will lag behind
        for key in ["e1", "e2"] { try cloud.save(examined, key) }
        _ = try examined.sync()
        _ = try examined.rollBaseline(force: true)            // covers e1, e2; `gone` blocks their collection
        for key in ["w1", "w2", "w3"] { try cloud.save(writer, key) }
        let location = try #require(examined.location)
        let writerLogs = DirectoryEntry.list(location.logDirectory(of: writer.peerID)).filter { $0.name.hasSuffix(".1.cdt") }
        try FileManager.default.removeItem(atPath: location.logDirectory(of: writer.peerID) + "/" + writerLogs[1].name)   // missing predecessor
        skewed.store.wallClock = WallClock.system.skewed(by: 3_600)
        try cloud.save(skewed, "s1")
        _ = try gone.sync()
        try cloud.save(gone, "g1")                    // saw the skewed peer's transaction, dated its own an hour earlier: clock skew
        let folder = location.logDirectory(of: skewed.peerID)
        try AtomicFile.write(Array("not a log".utf8), to: folder + "/" + TransactionLog.fileName(number: 2))   // unreadable
        try AtomicFile.write([1], to: folder + "/" + TransactionLog.fileName(number: 1).replacingOccurrences(of: ".cdt", with: ".sync-conflict-20260101-101010-ABCDEFG.cdt"))   // conflict copy
        try AtomicFile.write([1], to: folder + "/notes.txt")                                                             // foreign file
        try AtomicFile.makeDirectory(location.ubiquityRoot + "/Not A Peer")                                               // foreign folder
        let otherVersion = "\(location.ubiquityRoot)/\(skewed.peerID)/\(location.contentName)/SomeOtherModelHash"
        try AtomicFile.makeDirectory(otherVersion)
        try AtomicFile.write([1], to: otherVersion + "/" + TransactionLog.fileName(number: 40))   // model mix: a save on another version waits
        let stale = location.logDirectory(of: examined.peerID) + "/.interrupted.nosync"
        try AtomicFile.write([0], to: stale)
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(-7_200)], ofItemAtPath: stale)   // stale temp file
        let old = Receipt(peerID: "old~00000000-0000-0000-0000-0000000000aa", knowledge: KnowledgeVector(), date: 0, modelVersionHash: cloud.model.hash)
        try AtomicFile.makeDirectory(location.logDirectory(of: old.peerID))
        try AtomicFile.write(PlistSeam.encode(old.plistValue, format: .binary), to: location.receiptPath(of: old.peerID))   // stale receipt
        _ = try examined.sync()                                                                  // quarantines, waits
        let fallback = examined.folder.storeFile(kind: .fallback, storeName: "Store")
        _ = try PersistentStore(path: fallback, model: cloud.model, peerID: examined.peerID, storeName: "Store", contentName: "Notes")   // stale fallback
        for peer in [examined, gone, skewed, writer] { peer.close() }

        let arguments = ["doctor", "--json", "--cloud", sandbox.root + "/cloud", "--device", cloud.devicePath("examined")]
        let first = try UbiqProcess(binary: sandbox.binary, arguments: arguments, directory: sandbox.root).wait()
        #expect(first.status == 1 && !first.signaled, "problems found: exit status 1; \(first)")
        let findings = try #require((try json(first.stdout) as? [String: Any])?["findings"] as? [[String: Any]])
        let kinds = Set(findings.compactMap { $0["kind"] as? String })
        for kind in ["missingPredecessor", "unreadableFile", "foreignFile", "blockedGarbageCollection", "staleReceipt",
                     "staleFallback", "staleTemporaryFile", "modelMix", "clockSkew", "conflictCopy"] {
            #expect(kinds.contains(kind), "doctor reports \(kind): \(kinds.sorted())")
        }
        #expect(findings.allSatisfy { ($0["repair"] as? String)?.isEmpty == false }, "every problem comes with its repair")

        let fixed = try UbiqProcess(binary: sandbox.binary, arguments: arguments + ["--fix"], directory: sandbox.root).wait()
        #expect(fixed.status == 1 && !fixed.signaled, "problems --fix cannot repair are left: exit status 1; \(fixed)")
        let again = try UbiqProcess(binary: sandbox.binary, arguments: arguments, directory: sandbox.root).wait()
        let after = Set(((try json(again.stdout) as? [String: Any])?["findings"] as? [[String: Any]] ?? []).compactMap { $0["kind"] as? String })
        #expect(!after.contains("staleTemporaryFile") && !after.contains("staleFallback"), "--fix repaired the safe ones: \(after.sorted())")
        #expect(after.contains("missingPredecessor"), "and left the rest for people")
    }

    /// A save in one process appears in another process's `watch` output.
    @Test func watchSeesASaveFromAnotherProcess() throws {
        let sandbox = try CLISandbox()
        try sandbox.initDevice("writer")
        try sandbox.initDevice("watcher")
        let watch = try sandbox.start(["watch"], device: "watcher")
        func waitFor(_ text: String) -> Bool {
            let deadline = Date().addingTimeInterval(20)
            while Date() < deadline, watch.isRunning {
                if watch.stdoutSoFar.contains(text) { return true }
                usleep(20_000)
            }
            return watch.stdoutSoFar.contains(text)
        }
        #expect(waitFor("watching "), "the watcher started")
        let id = try sandbox.succeed(["insert", "Note", "--id", "live", "title=Hello, watcher"], device: "writer").stdoutLines.first
        #expect(id == "Note/live")
        #expect(waitFor("inserted Note/live  \"Hello, watcher\""), "the watcher printed the save: \(watch.stdoutSoFar)")
        watch.send(SIGTERM)
        let result = watch.wait(timeout: 20)
        #expect(result.status == 0 && !result.signaled, "a clean stop on SIGTERM: \(result)")
        #expect(result.stdoutLines.last == "stopped")
    }

    /// `watch --json`: one object per line, the imported IDs with when the import committed.
    @Test func watchJSONReportsEachImportWithItsTime() throws {
        let sandbox = try CLISandbox()
        try sandbox.initDevice("writer")
        try sandbox.initDevice("watcher")
        let watch = try sandbox.start(["watch", "--json"], device: "watcher")
        func lines() -> [[String: Any]] {
            watch.stdoutSoFar.split(separator: "\n").compactMap { try? json(String($0)) as? [String: Any] }
        }
        func waitFor(_ found: ([[String: Any]]) -> Bool) -> Bool {
            let deadline = Date().addingTimeInterval(20)
            while Date() < deadline, watch.isRunning, !found(lines()) { usleep(20_000) }
            return found(lines())
        }
        #expect(waitFor { $0.first?["event"] as? String == "watching" }, "\(watch.stdoutSoFar)")
        let before = Date().timeIntervalSince1970
        _ = try sandbox.succeed(["insert", "Note", "--id", "live", "title=Hello"], device: "writer")
        #expect(waitFor { $0.contains { ($0["inserted"] as? [String]) == ["Note/live"] } }, "\(watch.stdoutSoFar)")
        let sync = try #require(lines().first { ($0["inserted"] as? [String]) == ["Note/live"] })
        #expect(sync["event"] as? String == "sync" && sync["applied"] as? Int == 1)
        let importedAt = try #require(sync["importedAt"] as? Double), time = try #require(sync["time"] as? Double)
        #expect(before <= importedAt && importedAt <= time && time <= Date().timeIntervalSince1970)
        watch.send(SIGTERM)
        let result = watch.wait(timeout: 20)
        #expect(result.status == 0 && (try? json(result.stdoutLines.last ?? "") as? [String: Any])?["event"] as? String == "stopped")
    }
}

/// Library-side set-up of a container for the CLI to inspect, in a sandbox's folders.
struct TestCloudAt {
    let root: String
    let model = ObjectModel.notes

    func devicePath(_ name: String) -> String { root + "/devices/" + name }

    func peer(_ name: String) throws -> UbiquityPeer {
        if !FileManager.default.fileExists(atPath: devicePath(name) + "/device.plist") {
            _ = try Device.create(at: devicePath(name), userName: name)
        }
        return try UbiquityPeer(configuration: PeerConfiguration(cloud: root + "/cloud", device: devicePath(name), model: model,
                                                                 contentName: "Notes", baselinePolicy: nil, logger: .silent))
    }

    func save(_ peer: UbiquityPeer, _ key: String) throws {
        let context = peer.newContext()
        try context.insert("Note", key: key)["title"] = .string(key)
        try context.save()
    }
}
