import Foundation

// Applying imported logs while the caller still produces the later ones (the importer decodes
// them on another core meanwhile, `LogDecodePipeline`).
extension PersistentStore {
    /// `applyImported(_:)` of the logs `next` hands over one at a time, until it returns `nil`:
    /// the same transaction, order, refusals and result as `applyImported` of those logs, which
    /// come back in `logs`. An error `next` throws rolls the whole batch back and is rethrown.
    /// `expectedLogs`: about how many logs `next` will hand over (the first log's counts times
    /// it size the batch's change sets once).
    package func applyImported(pulling next: () throws -> TransactionLog?, expectedLogs: Int) throws -> (application: ImportApplication, logs: [TransactionLog]) {
        let (application, logs) = try locked {
            let savedClock = clock
            var logs: [TransactionLog] = []
            do {
                if let result = try applyPulled(next, expectedLogs: expectedLogs, into: &logs) { return (result, logs) }
                // A log refused: the rest of the batch, then all of it log by log, as `applyImported` does.
                while let log = try next() { logs.append(log) }
                try forgetRolledBack(clock: savedClock)
                return (try applyImported(logs, logByLog: true)!, logs)
            } catch {
                try forgetRolledBack(clock: savedClock)
                throw error
            }
        }
        if !application.changes.isEmpty { changeObservers.notify(.committed(application.changes, local: false)) }
        return (application, logs)
    }

    /// `applyImported(_:logByLog: false)` over pulled logs, collected into `logs`; `nil` when
    /// the store refused one (the transaction rolled back).
    private func applyPulled(_ next: () throws -> TransactionLog?, expectedLogs: Int, into logs: inout [TransactionLog]) throws -> ImportApplication? {
        try importTransaction { result in
            while let log = try next() {
                if logs.isEmpty {
                    let count = max(1, expectedLogs)
                    result.changes.reserveCapacity(inserted: log.inserted.count * count, updated: log.updated.count * count, deleted: log.deleted.count * count)
                }
                logs.append(log)
                guard log.transactionNumber > knowledgeCache[log.peerID] else { continue }
                guard log.transactionNumber == knowledgeCache[log.peerID] + 1, knowledgeCache.dominates(log.knowledge.removing(log.peerID)) else {
                    // Without a refused log (none here), the caller broke the order.
                    throw StoreError.notApplicable(peer: log.peerID, number: log.transactionNumber)
                }
                do {
                    try apply(log, into: &result.changes)
                } catch where Self.isTheLogsFault(error) {
                    throw RefusedWithoutSavepoint()
                }
                result.applied.append((log.peerID, log.transactionNumber))
            }
        }
    }
}
