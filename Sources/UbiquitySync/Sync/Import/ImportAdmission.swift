import UbiquityBase
import UbiquityCore

/// What the admit stage checks a decoded log against, the same for every log of an import.
struct AdmissionChecks {
    /// Quarantine records by path.
    let records: [String: QuarantineRecord]
    /// This machine's clock.
    let now: Double
    /// The store's content epoch: a log of another is not this content.
    let epoch: String?
    /// Whether the model has attributes whose values may be stored outside the log.
    let externalValues: Bool
}

/// A log admitted and waiting to apply, with when its file arrived.
struct WaitingLog {
    let log: TransactionLog
    let arrived: Double
}

/// The logs the admit stage accepted, and what it learned of them.
struct AdmittedLogs {
    /// Logs accepted and not applied yet.
    var pending: [LogID: WaitingLog] = [:]
    /// The file each accepted log came from.
    var candidates: [LogID: Importer.Candidate] = [:]
    /// The plain bytes each log of the one-thread way was decoded from: those left waiting
    /// at the end are kept decoded (`DecodedLogCache`) for the next sync.
    var plainBytes: [LogID: [UInt8]] = [:]
    /// Logs whose external data has not arrived: what they wait for.
    var dataWaits: [LogID: String] = [:]

    mutating func enqueue(_ log: TransactionLog, of candidate: Importer.Candidate) {
        pending[candidate.id] = WaitingLog(log: log, arrived: candidate.entry.modificationTime)
        candidates[candidate.id] = candidate
    }

    /// Puts a log of the batch back among those waiting (it depends on one the store refused).
    mutating func putBack(_ log: TransactionLog) {
        let id = LogID(log.peerID, log.transactionNumber)
        pending[id] = WaitingLog(log: log, arrived: candidates[id]?.entry.modificationTime ?? 0)
    }

    /// What the causal order needs of the pending logs.
    var headers: [CausalOrder.Header] { pending.map { CausalOrder.Header($0.key, knowledge: $0.value.log.knowledge) } }
}

extension Importer {
    /// The admit stage, for one candidate: checks its decoded log (`outcome`), quarantining it
    /// if it fails, and adds it to `admitted` unless it is not this content or waits for data.
    /// A file quarantined earlier that now verifies (a file-sync tool exposed it before it had
    /// all arrived, or wrote it unreadable first) loses its record.
    func admit(_ candidate: Candidate, checks: AdmissionChecks, into admitted: inout AdmittedLogs, setAside: inout [String: [Int64: String]],
               report: inout ImportReport, _ outcome: () -> DecodeOutcome) throws {
        if admitted.pending[candidate.id] != nil {
            report.ignored.append(candidate.relativePath)
            logger.log(.warning, .importer, "scan", "a second log for transaction \(candidate.number) of \(candidate.peerID) is ignored: \(candidate.relativePath)")
            return
        }
        var bytes: [UInt8]?
        do {
            let log: TransactionLog
            switch outcome() {
            case .locked:
                report.locked += 1
                return
            case let .failed(error, read):
                bytes = read
                throw error
            case let .decoded(decoded, read, plain):
                (log, bytes) = (decoded, read)
                if plain, let read, read.count <= DecodedLogCache.largestLog { admitted.plainBytes[candidate.id] = read }
            }
            try verify(log, of: candidate, checks: checks, into: &admitted, report: &report)
        } catch let error as LogError {
            var retryAfter: Double?
            if case let .stampTooFarAhead(stamp, _) = error { retryAfter = Double(stamp.wallMilliseconds) / 1000 - Stamp.maximumLead }
            try quarantine(candidate, reason: error.description, retryAfter: retryAfter, bytes: bytes)
            report.quarantined.append(QuarantinedFile(path: candidate.relativePath, cause: .unreadableLog(error)))
            setAside[candidate.peerID, default: [:]][candidate.number] = error.description
        }
    }

    /// The checks of a decoded log: its author, number, content epoch, stamp and external data.
    private func verify(_ log: TransactionLog, of candidate: Candidate, checks: AdmissionChecks, into admitted: inout AdmittedLogs,
                        report: inout ImportReport) throws {
        guard log.peerID == candidate.peerID else { throw LogError.wrongAuthor(folder: candidate.peerID, log: log.peerID) }
        guard log.transactionNumber == candidate.number else {
            throw LogError.wrongNumber(fileName: candidate.entry.name, log: log.transactionNumber)
        }
        guard log.contentEpoch == checks.epoch else {
            // Saved before its author knew of a removal (or after one this store has not
            // seen yet): not this content. Left alone, never applied, never quarantined.
            try clearRecord(of: candidate, checks.records)
            report.ignored.append(candidate.relativePath)
            logger.log(.verbose, .importer, "scan", "skipped \(candidate.relativePath): it belongs to content epoch \(log.contentEpoch ?? "(first)"), this store is in \(checks.epoch ?? "(first)")")
            return
        }
        // Adopting a stamp far ahead would drag this peer's clock, and every stamp it
        // writes after, toward the largest a stamp can hold.
        guard !log.stamp.isTooFarAhead(of: checks.now) else { throw LogError.stampTooFarAhead(log.stamp, now: checks.now) }
        try clearRecord(of: candidate, checks.records)
        // Its external values first: a log never applies without them (Docs/ContainerFormat.md, "External binary data").
        if checks.externalValues, let wait = try awaitExternalData(of: log, records: checks.records, now: checks.now, report: &report) {
            report.missingExternalData.append(wait)
            admitted.dataWaits[candidate.id] = wait.sha256
            return
        }
        admitted.enqueue(log, of: candidate)
    }

    /// Brings in the external values `log` names (`ContainerLocation.fetchExternalData`);
    /// returns what it waits for when one is not there yet or its file is damaged. A damaged
    /// file is quarantined (recorded, not copied: it may be large) and, unchanged, not read again.
    func awaitExternalData(of log: TransactionLog, records: [String: QuarantineRecord], now: Double,
                                   report: inout ImportReport) throws -> ImportReport.ExternalDataWait? {
        for reference in log.externalReferences.sorted(by: { $0.sha256 < $1.sha256 }) where !store.externalData.contains(reference) {
            let known = location.externalDataNames(reference).lazy.compactMap { name -> (String, String)? in
                let relative = location.relativeExternalDataPath(name)
                guard let record = records[relative], let file = DirectoryEntry.at(location.absolute(relative)),
                      record.holds(for: file, now: now) else { return nil }
                return (relative, record.reason)
            }.first
            if let (_, reason) = known {
                return .init(peerID: log.peerID, number: log.transactionNumber, sha256: reference.sha256, damage: reason)
            }
            switch location.fetchExternalData(reference, into: store.externalData) {
            case .present:
                continue
            case .missing, .locked:
                logger.log(.info, .importer, "scan", "transaction \(log.transactionNumber) of \(log.peerID) waits for external data \(reference.sha256)")
                return .init(peerID: log.peerID, number: log.transactionNumber, sha256: reference.sha256, damage: nil)
            case let .damaged(path, reason):
                logger.error(.importer, "quarantine:", "quarantined \(path): \(reason)")
                if let file = DirectoryEntry.at(location.absolute(path)) {
                    try store.recordQuarantine(path: path, file: file, reason: reason, retryAfter: nil)
                }
                report.quarantined.append(QuarantinedFile(path: path, cause: .damagedExternalData(reason)))
                return .init(peerID: log.peerID, number: log.transactionNumber, sha256: reference.sha256, damage: reason)
            }
        }
        return nil
    }

    /// A file that verifies now loses an earlier record (it was whole only later).
    func clearRecord(of candidate: Candidate, _ records: [String: QuarantineRecord]) throws {
        guard records[candidate.relativePath] != nil else { return }
        try store.clearQuarantine(path: candidate.relativePath)
        logger.log(.warning, .importer, "scan", "\(candidate.relativePath) is whole now: no longer quarantined")
    }
}
