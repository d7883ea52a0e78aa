import Foundation
import UbiquityBase
import UbiquityCore

/// What one garbage collection did and what holds it back.
public struct GarbageReport: Sendable, Equatable {
    /// Own log files deleted (names).
    public var deleted: [String] = []
    /// Own log files kept.
    public var kept = 0
    /// Duplicate copies (`name 2.ext`) of own logs and receipt deleted (names).
    public var deletedCopies: [String] = []
    /// Peers whose receipt has not passed a log the baseline covers (they keep it alive until
    /// the grace period ends), with how far their receipt has come.
    public var blockingPeers: [String: Int64] = [:]
    /// Peers whose receipt is older than the grace period before the content's newest receipt:
    /// silent while others went on, probably gone for good (`GarbageCollector.staleReceipts`).
    public var staleReceipts: [String] = []
    /// Why nothing could be collected, when that is so.
    public var note: String?

    package init(note: String? = nil) { self.note = note }
}

/// Deletes this peer's own logs that nobody needs any more (Docs/Lifecycle.md, `BaselineProtocol.mayCollect`):
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
        let ownFolder = scan.peerFolders.first { $0.peerID == me }
        guard view[me] > 0 else {
            // Copies that read as their log still go: they hold nothing the log does not.
            report.deletedCopies = collectDuplicateCopies(in: ownFolder, dryRun: dryRun) { _, _ in false }
            report.kept = mine.count
            report.note = "no baseline holds a transaction of this peer yet: every log is still needed"
            return report
        }
        var receipts: [String: Receipt] = [:]
        var newestReceipt = -Double.infinity
        let epoch = try? store.contentEpoch()
        for folder in scan.peerFolders {
            let peer = folder.peerID
            // A receipt of removed content proves nothing about this content; a folder listed without one has none this round.
            guard let listed = folder.entries.first(where: { $0.kind == .receipt }),
                  let receipt = location.caches.receipts.receipt(listed: listed, of: location, limit: 1 << 20),
                  receipt.peerID == peer, receipt.contentEpoch == epoch ?? nil else { continue }
            newestReceipt = max(newestReceipt, receipt.date)
            if peer != me { receipts[peer] = receipt }
        }
        report.staleReceipts = Self.staleReceipts(receipts, newest: newestReceipt, now: now, gracePeriod: policy.gracePeriod)
        // A peer folder without a readable receipt has passed nothing we can prove.
        let peersWithoutReceipt = scan.peers.filter { $0 != me && receipts[$0] == nil }
        let views = receipts.values.map { ReceiptView(knowledge: $0.knowledge, baselineView: $0.baselineKnowledge ?? KnowledgeVector()) }
        let cutoff = now.timeIntervalSince1970 - policy.gracePeriod, held = view[me]
        // What the receipts let go, worked out once (not a knowledge lookup per receipt and log).
        let byReceipts = BaselineProtocol.collectableByReceipts(author: me, view: view, receipts: views, peersWithoutReceipt: peersWithoutReceipt.count)
        // How far each peer's receipt has come with this peer's logs, for the logs it holds back.
        let passedByPeer = receipts.map { (peer: $0.key, passed: min($0.value.knowledge[me], $0.value.baselineKnowledge?[me] ?? 0)) }
        // The log's age (an `lstat`) is asked only when the receipts do not let it go (the rule's other way).
        func mayCollect(_ number: Int64, _ modificationTime: () -> Double) -> Bool {
            byReceipts.map { number <= $0 } ?? false
                || BaselineProtocol.mayCollect(author: me, number: number, view: view, receipts: [], peersWithoutReceipt: 1,
                                               olderThanGracePeriod: number <= held && modificationTime() < cutoff)
        }
        // Copies first: one that differs from its log is judged by the log's rule while the log is still there.
        report.deletedCopies = collectDuplicateCopies(in: ownFolder, dryRun: dryRun, mayCollect: mayCollect)
        // The ages the rule asks for (of the logs the receipts do not let go), asked of the folder together.
        let ages = ContainerScan.LogFile.modificationTimes(mine.filter { log in log.number <= held && !(byReceipts.map { log.number <= $0 } ?? false) })
        for log in mine.sorted(by: { $0.number < $1.number }) {
            guard mayCollect(log.number, { ages[log.path] ?? log.modificationTime }) else {
                report.kept += 1
                guard log.number <= held else { continue }
                for (peer, passed) in passedByPeer {
                    if passed < log.number { report.blockingPeers[peer] = min(report.blockingPeers[peer] ?? passed, passed) }
                }
                for peer in peersWithoutReceipt { report.blockingPeers[peer] = 0 }
                continue
            }
            if dryRun {
                report.deleted.append(log.name)
            } else if location.isConfined(location.logDirectory(of: me)), unlink(location.logPath(of: me, log.name)) == 0 {
                try? store.forgetSent(log.number)
                report.deleted.append(log.name)
            } else {
                report.kept += 1
            }
        }
        if dryRun { return report }
        logger.log(.info, .garbageCollector, "collect", "deleted \(report.deleted.count) own log(s), kept \(report.kept)\(report.blockingPeers.isEmpty ? "" : "; held back by \(report.blockingPeers.keys.sorted().joined(separator: ", "))")")
        return report
    }

    /// The peers whose receipt is older than the grace period before the content's newest
    /// receipt (any peer's, this one's too; never later than `now`): silent while the others
    /// went on. Judged against the content's own activity, not the calendar alone, so a
    /// container nobody touches (a copy kept aside, the demo) does not age into this report,
    /// and a device back from a long time offline does not call every peer gone.
    static func staleReceipts(_ receipts: [String: Receipt], newest: Double, now: Date, gracePeriod: Double) -> [String] {
        let latestActivity = min(newest, now.timeIntervalSince1970)
        return receipts.filter { $0.value.date < latestActivity - gracePeriod }.keys.sorted()
    }
}

/// What a collection of external data did.
public struct ExternalDataGarbageReport: Sendable, Equatable {
    /// Files deleted from `.externalData/<ContentName>/` (names).
    public var deleted: [String] = []
    /// Files kept: named by a log, a baseline or this peer's outbox, or not old enough yet.
    public var kept = 0
    /// Why nothing was collected, when that is so.
    public var note: String?
}

extension GarbageCollector {
    /// Deletes external data files that no log in the cloud, no baseline file (conflict copies
    /// included) and nothing in this peer's outbox names, and that are older than
    /// `policy.externalDataGracePeriod`. Logs leave the cloud only by the log rule, so a file
    /// goes only once every log naming it was collected and the baselines no longer hold it.
    /// Nothing is deleted while something that might name a file cannot be read (a log or
    /// baseline that does not open, logs of another model version).
    package func collectExternalData(catalog: BaselineCatalog, policy: BaselinePolicy, now: Date, scan: ContainerScan? = nil) -> ExternalDataGarbageReport {
        var report = ExternalDataGarbageReport()
        let directory = location.externalDataDirectory
        let files = ContainerScan.externalDataFiles(of: location)
        guard !files.isEmpty else { return report }
        func keepAll(_ note: String) -> ExternalDataGarbageReport {
            report.kept = files.count
            report.note = note
            return report
        }
        // Only files old enough and not named by this store's own objects could go: most syncs
        // stop here, without reading a log.
        let cutoff = now.timeIntervalSince1970 - policy.externalDataGracePeriod
        let live = Set(((try? store.externalReferences()) ?? []).map { location.externalDataName($0) })
        guard files.contains(where: { $0.modificationTime <= cutoff && !live.contains($0.name) }) else {
            report.kept = files.count
            return report
        }
        guard catalog.setAside.isEmpty else { return keepAll("a baseline file cannot be read: it may name any of them") }
        let scan = scan ?? ContainerScan(location: location, modelVersions: true)
        for peer in scan.peerFolders {
            if !scan.otherModels(of: peer).isEmpty {
                return keepAll("logs of another model version may name them")
            }
        }
        var named = Set(catalog.entries.flatMap(\.metadata.externalData))
        for log in scan.logs {
            guard let bytes = try? location.read(log.path, limit: TransactionLog.maximumFileSize), let references = try? ExternalDataReference.all(inLog: bytes) else {
                return keepAll("log \(log.peerID)/\(log.name) cannot be read: it may name any of them")
            }
            named.formUnion(references.map(\.sha256))
        }
        for entry in (try? store.pendingOutbox()) ?? [] {
            guard let references = try? ExternalDataReference.all(inLog: entry.bytes) else { return keepAll("an outbox log cannot be read") }
            named.formUnion(references.map(\.sha256))
        }
        // Each hash under both names it may have (plain, and keyed when the content is sealed).
        // A plaintext file of content encrypted since is no longer needed once its sealed copy is there.
        let present = Set(files.map(\.name))
        var names = Set<String>()
        for hash in named {
            guard let reference = ExternalDataReference(sha256: hash, size: 0) else { continue }
            let current = location.externalDataName(reference)
            names.insert(current)
            if current != hash && !present.contains(current) { names.insert(hash) }
        }
        for file in files {
            guard !names.contains(file.name), file.modificationTime <= cutoff, location.isConfined(directory),
                  unlink(directory + "/" + file.name) == 0 else {
                report.kept += 1
                continue
            }
            report.deleted.append(file.name)
        }
        if !report.deleted.isEmpty {
            logger.log(.info, .garbageCollector, "collect", "deleted \(report.deleted.count) external data file(s) nothing names, kept \(report.kept)")
        }
        return report
    }
}
