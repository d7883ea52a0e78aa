import Foundation
import UbiquityBase
import UbiquityCore

extension Importer {
    /// What waits is kept decoded: the next sync reads it again only if its file changed.
    func keepDecoded(_ admitted: AdmittedLogs) {
        for (id, waiting) in admitted.pending {
            guard let bytes = admitted.plainBytes[id], let candidate = admitted.candidates[id] else { continue }
            location.caches.decodedLogs.keep(waiting.log, from: bytes, at: location.absolute(candidate.relativePath),
                                        signature: candidate.settledSignature, model: store.model, watched: candidate.folder?.memo)
        }
    }

    /// The report stage: what waits, and for what: a missing predecessor, or one set aside as
    /// damaged, or external data.
    func reportWaits(_ admitted: AdmittedLogs, scanned: ScannedLogs, into report: inout ImportReport) throws {
        let appliedNow = store.knowledge
        let pending = Dictionary(grouping: admitted.pending, by: \.key.peer)
        for peer in Set(pending.keys).union(scanned.unread.keys).sorted() {
            let logs = (pending[peer] ?? []).sorted { $0.key < $1.key }, skipped = scanned.unread[peer]
            let count = logs.count + (skipped?.count ?? 0)
            guard count > 0 else { continue }
            report.waiting += count
            let next = LogID(peer, appliedNow[peer] + 1)
            let nextWaits = admitted.pending[next] != nil
            for (id, _) in logs {
                let reason = nextWaits ? "waiting for transactions of other peers it has seen" : "waiting for its predecessor \(next.number)"
                logger.log(.verbose, .importer, "scan", "skipped transaction \(id.number) of \(peer): \(reason)")
            }
            guard !nextWaits else { continue }
            if let hash = admitted.dataWaits[next] {
                logger.log(.warning, .importer, "scan", "transaction \(next.number) of peer \(peer) waits for external data \(hash); \(count) later log(s) wait behind it")
                continue
            }
            let since = Date(timeIntervalSince1970: min(logs.map(\.value.arrived).min() ?? .infinity, skipped?.arrived ?? .infinity))
            reportMissing(next, since: since, waiting: count, setAside: scanned.setAside[peer]?[next.number], into: &report)
        }
        report.waiting += report.missingExternalData.count
        try recordExternalDataWaits(report.missingExternalData)
    }

    /// A missing predecessor, `count` logs waiting for it since `since`; `setAside`: why it was quarantined.
    private func reportMissing(_ next: LogID, since: Date, waiting count: Int, setAside quarantined: String?, into report: inout ImportReport) {
        report.missingPredecessors.append(.init(peerID: next.peer, number: next.number, waitingSince: since, quarantineReason: quarantined))
        if let quarantined {
            logger.log(.warning, .importer, "scan", "transaction \(next.number) of peer \(next.peer) is quarantined (\(quarantined)); \(count) later log(s) wait for a quarantined predecessor")
        } else {
            logger.log(.warning, .importer, "scan", "missing transaction \(next.number) of peer \(next.peer) since \(since); \(count) later log(s) wait for it")
        }
    }

    /// Records what waits for external data: the logs' waits, and values a joined baseline
    /// brought whose files had not arrived then.
    private func recordExternalDataWaits(_ logWaits: [ImportReport.ExternalDataWait]) throws {
        var storeWaits: [String] = []
        for reference in try store.missingExternalData() {
            switch location.fetchExternalData(reference, into: store.externalData) {
            case .present: continue
            case .missing, .locked: storeWaits.append("a value in the store waits for external data \(reference.sha256): not arrived yet")
            case let .damaged(path, reason): storeWaits.append("a value in the store waits for external data \(reference.sha256): \(path) is damaged (\(reason))")
            }
        }
        try store.recordExternalDataWaits(logWaits.map(\.line) + storeWaits)
    }
}
