import Foundation
import Testing
@testable import Ubiquity
@testable import UbiquitySync
@testable import UbiquityCore
import UbiquityTestSupport

/// Baselines destroyed outright — an older copy brought back from a backup, or the file deleted
/// — after their authors collected the logs only they held (Docs/Lifecycle.md, "Baselines and
/// garbage collection": a file lost outside the rules).
@Suite("Destroyed baselines")
struct DestroyedBaselineTests {
    func save(_ peer: UbiquityPeer, _ key: String) throws {
        let context = peer.newContext()
        let note = try context.object(GlobalID(entity: "Note", key: key)) ?? context.insert("Note", key: key)
        note["title"] = .string(key)
        try context.save()
    }

    /// Destroys `baseline.zip`: brings `backup` back over it, as a backup restored over the
    /// cloud would, or (`nil`) deletes it.
    func destroy(_ path: String, restoring backup: [UInt8]?) throws {
        try FileManager.default.removeItem(atPath: path)
        if let backup { try AtomicFile.write(backup, to: path) }
    }

    /// Two peers each hold a transaction nothing else holds any more: each rolled a baseline
    /// with it and collected its log after the grace period (the other never saw it), and each
    /// time an older baseline was brought back from a backup (or the baseline deleted). Each
    /// peer's next log then waits for the other's lost transaction, so neither can import every
    /// visible log, and under the old rule neither rolled the baseline that would publish what it holds: they waited
    /// for each other for good, and a newcomer never got either transaction. A roll due for
    /// stranded transactions now goes ahead past logs that wait on transactions no file holds.
    @Test(arguments: [true, false])
    func twoPeersHoldingWhatADestroyedBaselineHeldDoNotWaitForEachOther(restoringABackup: Bool) throws {
        let cloud = try TestCloud()
        // Rolls only when forced or due for stranded transactions; logs go after an hour whatever the receipts.
        let patient = BaselinePolicy(transactionThreshold: 1_000, gracePeriod: 3_600)
        let a = try cloud.peer("a", policy: patient), b = try cloud.peer("b", policy: patient)
        let later = Date().addingTimeInterval(7_200)
        try save(a, "shared")
        for _ in 0..<2 { _ = try a.sync(); _ = try b.sync() }
        guard case .rolled = try a.rollBaseline(force: true) else {
            Issue.record("a rolls the baseline the backup keeps")
            return
        }
        let path = try #require(a.location).baselinePath
        let backup = restoringABackup ? try AtomicFile.read(path, limit: 1 << 24) : nil

        // a saves while b is away, rolls, and collects the log once the grace period is over.
        try save(a, "from-a")
        _ = try a.sync()
        _ = try a.rollBaseline(force: true)
        #expect(a.baselineMetadata?.knowledge[a.peerID] == 2, "a rolls a baseline holding from-a")
        #expect(a.collectGarbage(now: later).deleted.count == 2)
        try destroy(path, restoring: backup)
        // b, never having seen from-a, does the same with its own save.
        try save(b, "from-b")
        _ = try b.sync()
        _ = try b.rollBaseline(force: true) // without a baseline, its sync rolled one already
        #expect(b.baselineMetadata?.knowledge[b.peerID] == 1, "b rolls a baseline holding from-b")
        #expect(b.collectGarbage(now: later).deleted.count == 1)
        try destroy(path, restoring: backup)

        // Each saves again: a's log waits for a transaction of its own that b can never get
        // from a file, and b's for one of b's that a cannot.
        try save(a, "a-later")
        try save(b, "b-later")
        var decisions: [String] = []
        for _ in 0..<3 {
            for peer in [a, b] { decisions.append(try peer.sync().baseline?.reason ?? "no decision") }
        }
        #expect(try a.mergeStateText() == b.mergeStateText(), "a and b converge; their roll decisions: \(decisions)")
        let newcomer = try cloud.peer("newcomer", policy: patient)
        _ = try newcomer.sync()
        #expect(try noteKeys(newcomer) == ["a-later", "b-later", "from-a", "from-b", "shared"],
                "a newcomer gets every saved transaction; roll decisions: \(decisions)")
        #expect(try newcomer.mergeStateText() == a.mergeStateText())
    }

    /// The roll's judge of pending logs: a log behind a missing predecessor, and a log whose
    /// knowledge asks for a transaction behind one, can never be imported; a run of logs that
    /// can is taken whole, whatever the order it is given in.
    @Test func importableLogsAreThoseWhoseWaitsTheVisibleLogsCanEnd() {
        let held = KnowledgeVector(["a": 3, "b": 1])
        let pending = [
            PendingLog(peer: "c", number: 2, knowledge: KnowledgeVector(["a": 3, "b": 2, "c": 2])),
            PendingLog(peer: "b", number: 2, knowledge: KnowledgeVector(["a": 3, "b": 2])),
            PendingLog(peer: "c", number: 1, knowledge: KnowledgeVector(["c": 1])),
            PendingLog(peer: "a", number: 5, knowledge: KnowledgeVector(["a": 5])),         // a4 is in no file
            PendingLog(peer: "d", number: 1, knowledge: KnowledgeVector(["a": 5, "d": 1])), // waits for a5
            PendingLog(peer: "e", number: 1, knowledge: nil),                              // unreadable: counts
        ]
        let importable = BaselineProtocol.importableLogs(knowledge: held, pending: pending)
        #expect(Set(importable.map { "\($0.peer)\($0.number)" }) == ["b2", "c1", "c2", "e1"])
    }
}
