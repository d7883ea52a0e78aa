import Foundation
import UbiquityBase
import UbiquityCore

/// What one garbage collection did and what holds it back.
public struct GarbageReport: Sendable, Equatable {
    /// Own log files deleted (names).
    public var deleted: [String] = []
    /// Own log files kept.
    public var kept = 0
    /// Peers whose receipt has not passed a log the baseline covers (they keep it alive until
    /// the grace period ends), with how far their receipt has come.
    public var blockingPeers: [String: Int64] = [:]
    /// Peers whose receipt is older than the grace period: probably gone for good.
    public var staleReceipts: [String] = []
    /// Why nothing could be collected, when that is so.
    public var note: String?

    package init(note: String? = nil) { self.note = note }
}

/// Deletes this peer's own logs that nobody needs any more (DESIGN §6, `BaselineProtocol.mayCollect`):
/// held by a visible baseline, and applied by every known peer, which also sees a baseline
/// holding them (its receipt says so) — or older than the grace period.
package struct GarbageCollector {
    let store: PersistentStore
    let location: ContainerLocation
    let logger: UbiquityLogger

    package init(store: PersistentStore, location: ContainerLocation, logger: UbiquityLogger) {
        self.store = store
        self.location = location
        self.logger = logger
    }

    /// `view` is what the baselines this peer sees hold together (`BaselineCatalog.view`).
    /// With `dryRun`, nothing is deleted: `deleted` lists what would be (doctor uses this).
    /// `scan` saves a listing of the container when the caller has a fresh one.
    package func collect(view: KnowledgeVector, policy: BaselinePolicy, now: Date, dryRun: Bool = false, scan: ContainerScan? = nil) -> GarbageReport {
        var report = GarbageReport()
        let me = store.peerID
        let scan = scan ?? ContainerScan(location: location)
        let mine = scan.logs.filter { $0.peerID == me }
        guard view[me] > 0 else {
            report.kept = mine.count
            report.note = "no baseline holds a transaction of this peer yet: every log is still needed"
            return report
        }
        var receipts: [String: Receipt] = [:]
        let epoch = try? store.contentEpoch()
        for peer in scan.peers where peer != me {
            // A receipt of removed content proves nothing about this content.
            guard let bytes = try? location.read(location.receiptPath(of: peer), limit: 1 << 20),
                  let receipt = try? Receipt(decoding: bytes), receipt.peerID == peer, receipt.contentEpoch == epoch ?? nil else { continue }
            receipts[peer] = receipt
            if receipt.date < now.timeIntervalSince1970 - policy.gracePeriod { report.staleReceipts.append(peer) }
        }
        // A peer folder without a readable receipt has passed nothing we can prove.
        let peersWithoutReceipt = scan.peers.filter { $0 != me && receipts[$0] == nil }
        let views = receipts.values.map { ReceiptView(knowledge: $0.knowledge, baselineView: $0.baselineKnowledge ?? KnowledgeVector()) }
        let cutoff = now.timeIntervalSince1970 - policy.gracePeriod
        for log in mine.sorted(by: { $0.number < $1.number }) {
            guard BaselineProtocol.mayCollect(author: me, number: log.number, view: view, receipts: views,
                                              peersWithoutReceipt: peersWithoutReceipt.count,
                                              olderThanGracePeriod: log.modificationTime < cutoff) else {
                report.kept += 1
                guard log.number <= view[me] else { continue }
                for (peer, receipt) in receipts {
                    let passed = min(receipt.knowledge[me], receipt.baselineKnowledge?[me] ?? 0)
                    if passed < log.number { report.blockingPeers[peer] = min(report.blockingPeers[peer] ?? passed, passed) }
                }
                for peer in peersWithoutReceipt { report.blockingPeers[peer] = 0 }
                continue
            }
            if dryRun {
                report.deleted.append(log.name)
            } else if location.isConfined(location.logDirectory(of: me)), unlink(location.logDirectory(of: me) + "/" + log.name) == 0 {
                try? store.forgetSent(log.number)
                report.deleted.append(log.name)
            } else {
                report.kept += 1
            }
        }
        report.staleReceipts.sort()
        if dryRun { return report }
        logger.log(.info, "PFUbiquityGarbageCollector", "collect", "deleted \(report.deleted.count) own log(s), kept \(report.kept)\(report.blockingPeers.isEmpty ? "" : "; held back by \(report.blockingPeers.keys.sorted().joined(separator: ", "))")")
        return report
    }
}
