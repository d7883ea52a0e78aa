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

/// Deletes this peer's own logs that nobody needs any more (DESIGN §6): covered by the current
/// baseline, and passed by every known peer's receipt (imported, and covered by the baseline
/// that peer sees) or older than the grace period.
package struct GarbageCollector {
    let store: PersistentStore
    let location: ContainerLocation
    let logger: UbiquityLogger

    package init(store: PersistentStore, location: ContainerLocation, logger: UbiquityLogger) {
        self.store = store
        self.location = location
        self.logger = logger
    }

    /// With `dryRun`, nothing is deleted: `deleted` lists what would be (doctor uses this).
    /// `scan` saves a listing of the container when the caller has a fresh one.
    package func collect(baseline: BaselineMetadata?, policy: BaselinePolicy, now: Date, dryRun: Bool = false, scan: ContainerScan? = nil) -> GarbageReport {
        var report = GarbageReport()
        let me = store.peerID
        let scan = scan ?? ContainerScan(location: location)
        let mine = scan.logs.filter { $0.peerID == me }
        guard let baseline else {
            report.kept = mine.count
            report.note = "no baseline yet: every log is still needed"
            return report
        }
        var receipts: [String: Receipt] = [:]
        for peer in scan.peers where peer != me {
            // A receipt of removed content proves nothing about this content.
            guard let bytes = try? AtomicFile.read(location.receiptPath(of: peer), limit: 1 << 20),
                  let receipt = try? Receipt(decoding: bytes), receipt.peerID == peer,
                  receipt.contentEpoch == (try? store.contentEpoch()) ?? nil else { continue }
            receipts[peer] = receipt
            if receipt.date < now.timeIntervalSince1970 - policy.gracePeriod { report.staleReceipts.append(peer) }
        }
        // A peer folder without a readable receipt has passed nothing we can prove.
        let peersWithoutReceipt = scan.peers.filter { $0 != me && receipts[$0] == nil }
        let cutoff = now.timeIntervalSince1970 - policy.gracePeriod
        for log in mine.sorted(by: { $0.number < $1.number }) {
            guard log.number <= baseline.knowledge[me] else { report.kept += 1; continue }
            // Passed means imported, and covered by the baseline that peer sees: a file-sync tool
            // may have kept a concurrent baseline there that lacks the log.
            let behind = receipts.filter { min($0.value.knowledge[me], $0.value.baselineKnowledge?[me] ?? 0) < log.number }
                .mapValues { min($0.knowledge[me], $0.baselineKnowledge?[me] ?? 0) }
            let passedByAll = behind.isEmpty && peersWithoutReceipt.isEmpty
            guard passedByAll || log.modificationTime < cutoff else {
                report.kept += 1
                report.blockingPeers.merge(behind) { min($0, $1) }
                for peer in peersWithoutReceipt { report.blockingPeers[peer] = 0 }
                continue
            }
            if dryRun {
                report.deleted.append(log.name)
            } else if unlink(location.logDirectory(of: me) + "/" + log.name) == 0 {
                try? store.collectSent(log.number)
                report.deleted.append(log.name)
            } else {
                report.kept += 1
            }
        }
        report.staleReceipts.sort()
        if dryRun { return report }
        try? store.forgetCollected(before: cutoff)
        logger.log(.info, "PFUbiquityGarbageCollector", "collect", "deleted \(report.deleted.count) own log(s), kept \(report.kept)\(report.blockingPeers.isEmpty ? "" : "; held back by \(report.blockingPeers.keys.sorted().joined(separator: ", "))")")
        return report
    }
}
