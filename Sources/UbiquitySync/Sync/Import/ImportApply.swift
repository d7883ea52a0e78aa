import UbiquityBase
import UbiquityCore

/// The batch the apply stage takes: admitted logs in causal order, and the knowledge once
/// they have all applied.
struct OrderedLogs {
    var knowledge: KnowledgeVector
    var batch: [TransactionLog] = []

    /// Moves every pending log that can apply now, in causal order (`CausalOrder`), to the batch.
    mutating func extend(from admitted: inout AdmittedLogs) {
        let order = CausalOrder(admitted.headers, after: knowledge)
        for id in order.order { batch.append(admitted.pending.removeValue(forKey: id)!.log) }
        knowledge = order.knowledge
    }

    /// Whether `log` can be the batch's next: its author's previous log is in, and everything
    /// else its author had seen.
    func admitsNext(_ log: TransactionLog) -> Bool {
        log.transactionNumber == knowledge[log.peerID] + 1 && knowledge.dominates(log.knowledge.removing(log.peerID))
    }
}

extension Importer {
    /// The pipeline gave up on merging while decoding: the import goes the one-thread way.
    private struct AbandonedPipeline: Error {}

    /// With the pipeline, the first chunk of the batch is merged while later logs are still
    /// being decoded: a log that is the batch's next (the candidates come by author and
    /// number, so its author's run in the first round of the order) goes to the store as soon
    /// as it is decoded; once one is not, the rest wait for the order. The chunk commits only
    /// once every candidate is decoded and found to need nothing but `admitted` — no
    /// quarantine, record, log line or report entry; anything else rolls it back (`nil`, with
    /// `admitted` and `ordered` as they came) and the import goes the one-thread way over the
    /// same decoded logs, so the outcome never depends on the pipeline.
    func mergeWhileDecoding(_ pipeline: LogDecodePipeline<DecodeOutcome>, candidates: [Candidate], checks: AdmissionChecks, batchSize: Int,
                            admitted: inout AdmittedLogs, ordered: inout OrderedLogs) throws -> (application: ImportApplication, logs: [TransactionLog])? {
        let (admittedBefore, orderedBefore) = (admitted, ordered)
        let chunkSize = max(1, batchSize)
        var index = 0, running = true, handed = 0, sorted = false, whileDecoding = 0
        do {
            let chunk = try store.applyImported(pulling: {
                while index < candidates.count {
                    let candidate = candidates[index]
                    guard case let .decoded(log, nil, _) = pipeline.outcome(at: index), log.peerID == candidate.peerID,
                          log.transactionNumber == candidate.number, log.contentEpoch == checks.epoch, !log.stamp.isTooFarAhead(of: checks.now) else {
                        throw AbandonedPipeline()
                    }
                    index += 1
                    admitted.enqueue(log, of: candidate)
                    guard running, handed < chunkSize, ordered.admitsNext(log) else {
                        running = false
                        continue
                    }
                    ordered.knowledge[log.peerID] = log.transactionNumber
                    admitted.pending[candidate.id] = nil
                    ordered.batch.append(log)
                    handed += 1
                    return log
                }
                if !sorted {
                    sorted = true
                    whileDecoding = handed
                    ordered.extend(from: &admitted)
                }
                guard handed < min(ordered.batch.count, chunkSize) else {
                    // Nothing to apply: no transaction, as without the pipeline.
                    if handed == 0 { throw AbandonedPipeline() }
                    return nil
                }
                handed += 1
                return ordered.batch[handed - 1]
            }, expectedLogs: min(candidates.count, chunkSize))
            onPipeline?(.merged(logs: handed, whileDecoding: whileDecoding))
            return chunk
        } catch is AbandonedPipeline {
            (admitted, ordered) = (admittedBefore, orderedBefore)
            onPipeline?(.abandoned)
            return nil
        }
    }

    /// The apply stage: `batch` in chunks of `batchSize` logs, one SQLite transaction each
    /// (the first one `first`, when the pipeline merged it already), each log on its own inside
    /// its chunk: a log the store refuses is quarantined and what depends on it waits, back in
    /// `admitted.pending`.
    func apply(_ batch: [TransactionLog], first: inout (application: ImportApplication, logs: [TransactionLog])?, batchSize: Int,
               admitted: inout AdmittedLogs, setAside: inout [String: [Int64: String]], report: inout ImportReport,
               onBatch: (ObjectChanges) -> Void) throws {
        var refused: [LogID] = []
        var start = 0
        while start < batch.count {
            let next = Array(batch[start..<min(batch.count, start + max(1, batchSize))])
            start += next.count
            var chunk: [TransactionLog] = []
            let result: ImportApplication
            if let first = first.take() {
                (result, chunk) = (first.application, first.logs)
            } else {
                for log in next {
                    if refused.contains(where: { log.knowledge.covers(peer: $0.peer, number: $0.number) }) {
                        admitted.putBack(log)
                    } else {
                        chunk.append(log)
                    }
                }
                guard !chunk.isEmpty else { continue }
                result = try store.applyImported(chunk)
            }
            try record(result, of: chunk, admitted: &admitted, setAside: &setAside, refused: &refused, report: &report, onBatch: onBatch)
        }
    }

    /// What one committed chunk did, in the report, the decoded-log cache and the quarantine.
    private func record(_ result: ImportApplication, of chunk: [TransactionLog], admitted: inout AdmittedLogs,
                        setAside: inout [String: [Int64: String]], refused: inout [LogID], report: inout ImportReport,
                        onBatch: (ObjectChanges) -> Void) throws {
        report.changes.merge(result.changes)
        report.applied += result.applied
        report.appliedBytes += result.applied.reduce(0) { $0 + (admitted.candidates[LogID($1.peerID, $1.number)]?.entry.size ?? 0) }
        if !location.caches.decodedLogs.isEmpty {
            location.caches.decodedLogs.forget(result.applied.compactMap { admitted.candidates[LogID($0.peerID, $0.number)].map { location.absolute($0.relativePath) } })
        }
        if !result.changes.isEmpty { onBatch(result.changes) }
        for (peer, number, reason) in result.refused {
            refused.append(LogID(peer, number))
            setAside[peer, default: [:]][number] = reason
            if let candidate = admitted.candidates[LogID(peer, number)] {
                try quarantine(candidate, reason: reason, retryAfter: nil, bytes: nil)
                report.quarantined.append(QuarantinedFile(path: candidate.relativePath, cause: .refusedByStore(reason)))
            }
        }
        for (peer, number) in result.deferred {
            if let log = chunk.first(where: { $0.peerID == peer && $0.transactionNumber == number }) { admitted.putBack(log) }
        }
        if logger.level >= .verbose {
            for (peer, number) in result.applied {
                guard let log = chunk.first(where: { $0.peerID == peer && $0.transactionNumber == number }) else { continue }
                logger.log(.verbose, .importer, "importLog:", "applied transaction \(number) of \(peer) (\(log.inserted.count) inserted, \(log.updated.count) updated, \(log.deleted.count) deleted)")
            }
        }
    }
}
