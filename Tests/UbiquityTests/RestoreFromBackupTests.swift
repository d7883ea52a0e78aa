import Foundation
import Testing
@testable import Ubiquity
@testable import UbiquitySync
@testable import UbiquityCore
import UbiquityTestSupport

/// A device brought back from an old backup of its device folder: its store is behind what it
/// wrote into the cloud since. It must catch up before it writes and never write a
/// transaction number twice, or saves are lost on both sides.
@Suite("A device restored from a backup")
struct RestoreFromBackupTests {
    /// No automatic rolls or collections: each test decides when a baseline rolls.
    let manual: BaselinePolicy? = nil

    func save(_ peer: UbiquityPeer, _ key: String) throws {
        let context = peer.newContext()
        let note = try context.insert("Note", key: key)
        note["title"] = .string(key)
        try context.save()
    }

    func saves(_ range: ClosedRange<Int>) -> [String] { range.map { "a\($0)" } }

    /// A's log files, by transaction number.
    func logNumbers(of peer: UbiquityPeer) throws -> [Int64] {
        let folder = try #require(peer.location).logDirectory(of: peer.peerID)
        return try FileManager.default.contentsOfDirectory(atPath: folder)
            .filter { $0.hasSuffix(".cdt") }
            .compactMap { Int64($0.prefix(10)) }
            .sorted()
    }

    /// Closes `peer` and copies its whole device folder aside, as a backup tool would.
    func backUp(_ cloud: TestCloud, _ name: String) throws -> String {
        let backup = cloud.root + "/backup-" + name
        try FileManager.default.copyItem(atPath: cloud.devicePath(name), toPath: backup)
        return backup
    }

    func restore(_ cloud: TestCloud, _ name: String, from backup: String) throws {
        let device = cloud.devicePath(name)
        try FileManager.default.removeItem(atPath: device)
        try FileManager.default.copyItem(atPath: backup, toPath: device)
    }

    func titles(_ peer: UbiquityPeer) throws -> Set<String> {
        Set(try peer.store.fetch(FetchRequest(entity: "Note")).compactMap { ($0.values["title"] ?? nil)?.stringValue })
    }

    /// What must hold at the end: no number written twice, every save on both, the same state.
    func expectSound(_ a: UbiquityPeer, _ b: UbiquityPeer, _ comment: Comment) throws {
        for _ in 0..<3 { _ = try a.sync(); _ = try b.sync() }
        let numbers = try logNumbers(of: a)
        #expect(Set(numbers).count == numbers.count, "one file per transaction number of A: \(numbers) — \(comment)")
        #expect(!(try Doctor.examine(a).map(\.kind)).contains(.duplicatePeer), "\(comment)")
        #expect(!(try Doctor.examine(b).map(\.kind)).contains(.duplicatePeer), "\(comment)")
        let expected = Set(saves(1...25))
        #expect(try titles(a) == expected, "every save on A — \(comment)")
        #expect(try titles(b) == expected, "every save on B — \(comment)")
        #expect(try a.dumpText() == b.dumpText(), "A and B converge — \(comment)")
        #expect(try a.mergeStateText() == b.mergeStateText(), "the same writers and stamps — \(comment)")
    }

    /// A saves 1–10 and syncs, is backed up, saves 11–20 and syncs, B syncs (its receipt shows
    /// A at 20). Returns A (closed, its backup taken at 10) and B.
    func prepare(_ cloud: TestCloud, beforeClosing: (UbiquityPeer, UbiquityPeer) throws -> Void = { _, _ in })
        throws -> (backup: String, b: UbiquityPeer) {
        var a: UbiquityPeer? = try cloud.peer("a", policy: manual)
        let b = try cloud.peer("b", policy: manual)
        for key in saves(1...10) { try save(a!, key) }
        _ = try a!.sync()
        _ = try b.sync()
        a!.close()
        a = nil
        let backup = try backUp(cloud, "a")
        a = try cloud.peer("a", policy: manual)
        for key in saves(11...20) { try save(a!, key) }
        _ = try a!.sync()
        _ = try b.sync()
        #expect(b.store.knowledge[a!.peerID] == 20, "B's receipt shows A at 20")
        try beforeClosing(a!, b)
        a!.close()
        a = nil
        return (backup, b)
    }

    @Test func restoredDeviceCatchesUpWithItsLaterLogs() throws {
        let cloud = try TestCloud()
        let (backup, b) = try prepare(cloud)
        try restore(cloud, "a", from: backup)
        let a = try cloud.peer("a", policy: manual)
        for key in saves(21...25) { try save(a, key) }
        _ = try a.sync()
        _ = try b.sync()
        try expectSound(a, b, "later logs still in the cloud")
        #expect(try logNumbers(of: a) == Array(1...25))
        a.close()
        b.close()
    }

    @Test func restoredDeviceJoinsTheBaselineThatHoldsItsCollectedLogs() throws {
        let cloud = try TestCloud()
        let eager = BaselinePolicy(transactionThreshold: 1, gracePeriod: 0)
        let (backup, b) = try prepare(cloud) { a, b in
            _ = try a.rollBaseline(force: true)
            _ = try b.sync()
            _ = try a.sync()
            _ = a.collectGarbage(policy: eager)
            #expect(try logNumbers(of: a).filter { $0 > 10 }.isEmpty, "only the baseline holds A's 11–20")
        }
        try restore(cloud, "a", from: backup)
        let a = try cloud.peer("a", policy: manual)
        for key in saves(21...25) { try save(a, key) }
        _ = try a.sync()
        _ = try b.sync()
        try expectSound(a, b, "later logs only in a baseline")
        #expect(try logNumbers(of: a).allSatisfy { $0 <= 10 || $0 > 20 }, "numbers 11–20 are never taken again")
        a.close()
        b.close()
    }

    @Test func restoredDeviceKeepsItsNumbersFreeForLogsThatComeBackLater() throws {
        let cloud = try TestCloud()
        var aside = ""
        var ownFolder = ""
        let (backup, b) = try prepare(cloud) { a, _ in
            ownFolder = try #require(a.location).logDirectory(of: a.peerID)
        }
        // The logs 11–20 have not reached this machine yet when A is restored.
        aside = cloud.root + "/aside"
        try FileManager.default.createDirectory(atPath: aside, withIntermediateDirectories: true)
        for name in try FileManager.default.contentsOfDirectory(atPath: ownFolder) where (Int64(name.prefix(10)) ?? 0) > 10 {
            try FileManager.default.moveItem(atPath: ownFolder + "/" + name, toPath: aside + "/" + name)
        }
        try restore(cloud, "a", from: backup)
        let a = try cloud.peer("a", policy: manual)
        for key in saves(21...25) { try save(a, key) }
        _ = try a.sync()
        _ = try b.sync()
        #expect(try titles(b).isSuperset(of: saves(21...25)), "B has A's new saves")
        // The logs arrive.
        for name in try FileManager.default.contentsOfDirectory(atPath: aside) {
            try FileManager.default.moveItem(atPath: aside + "/" + name, toPath: ownFolder + "/" + name)
        }
        try expectSound(a, b, "later logs back after A saved")
        a.close()
        b.close()
    }

    /// What tells A of its later numbers may reach this machine while A runs — after it opened,
    /// before its next save: its own logs, B's receipt, or a baseline. The check before the
    /// save's export reads it, wherever it lies, and the save goes out above, never under a
    /// number B applied.
    @Test(arguments: ["its own logs", "B's receipt", "a baseline"])
    func whatArrivesWhileTheDeviceRunsNumbersItsNextSaveAbove(arriving: String) throws {
        let cloud = try TestCloud()
        let eager = BaselinePolicy(transactionThreshold: 1, gracePeriod: 0)
        var ownFolder = "", ownReceipt = "", receipt = "", baseline = ""
        let (backup, b) = try prepare(cloud) { a, b in
            if arriving == "a baseline" {
                _ = try a.rollBaseline(force: true)
                _ = try b.sync()
                _ = try a.sync()
                _ = a.collectGarbage(policy: eager)
            }
            let location = try #require(a.location)
            ownFolder = location.logDirectory(of: a.peerID)
            ownReceipt = location.receiptPath(of: a.peerID)
            receipt = try #require(b.location).receiptPath(of: b.peerID)
            baseline = location.baselinePath
        }
        // Nothing newer of A has reached this machine when A is restored and opened.
        let aside = cloud.root + "/aside"
        try FileManager.default.createDirectory(atPath: aside, withIntermediateDirectories: true)
        var later = try FileManager.default.contentsOfDirectory(atPath: ownFolder).filter { (Int64($0.prefix(10)) ?? 0) > 10 }.map { ownFolder + "/" + $0 }
        later += [ownReceipt, receipt, baseline].filter { FileManager.default.fileExists(atPath: $0) }
        for (index, path) in later.enumerated() { try FileManager.default.moveItem(atPath: path, toPath: aside + "/\(index)") }
        func bringBack(_ paths: [String]) throws {
            for (index, path) in later.enumerated() where paths.contains(path) {
                try FileManager.default.moveItem(atPath: aside + "/\(index)", toPath: path)
            }
        }
        try restore(cloud, "a", from: backup)
        let a = try cloud.peer("a", policy: manual)
        #expect(a.store.ownNumbersTaken == 10, "nothing newer seen at open")
        let arrives = arriving == "its own logs" ? later.filter { $0.hasPrefix(ownFolder + "/0") } : [arriving == "B's receipt" ? receipt : baseline]
        try bringBack(arrives)
        try save(a, "a21")
        #expect(try a.store.pendingOutbox().isEmpty, "the save went out")
        #expect(try logNumbers(of: a).filter { $0 > 10 } == (arriving == "its own logs" ? Array(11...21) : [21]), "\(arriving): sent above 20")
        try bringBack(later.filter { !arrives.contains($0) })
        for key in saves(22...25) { try save(a, key) }
        try expectSound(a, b, "\(arriving) arrived while A ran")
        a.close()
        b.close()
    }

    /// Saves made before anything newer of A reached this machine take numbers the container
    /// holds; unsent, they are numbered again above them when it arrives, and nothing is lost.
    @Test func savesMadeBeforeTheNewerFilesArrivedAreNumberedAgain() throws {
        let cloud = try TestCloud()
        var ownFolder = "", receipt = ""
        let (backup, b) = try prepare(cloud) { a, b in
            ownFolder = try #require(a.location).logDirectory(of: a.peerID)
            receipt = try #require(b.location).receiptPath(of: b.peerID)
        }
        // Nothing newer of A has reached this machine: not its folder, not B's receipt.
        let aside = cloud.root + "/aside"
        try FileManager.default.moveItem(atPath: ownFolder, toPath: aside)
        try FileManager.default.moveItem(atPath: receipt, toPath: cloud.root + "/receipt-aside")
        // A file in place of A's folder: its exports fail, so the saves stay in the outbox.
        try AtomicFile.write([0], to: ownFolder)
        try restore(cloud, "a", from: backup)
        let a = try cloud.peer("a", policy: manual)
        for key in saves(21...25) { try save(a, key) }
        #expect(try a.store.pendingOutbox().map(\.number) == Array(11...15), "saved under numbers the container holds")
        try FileManager.default.removeItem(atPath: ownFolder)
        try FileManager.default.moveItem(atPath: aside, toPath: ownFolder)
        try FileManager.default.moveItem(atPath: cloud.root + "/receipt-aside", toPath: receipt)
        _ = try a.sync()
        #expect(try a.store.pendingOutbox().isEmpty)
        try expectSound(a, b, "saves made before the newer files arrived")
        #expect(try logNumbers(of: a) == Array(1...25))
        a.close()
        b.close()
    }
}
