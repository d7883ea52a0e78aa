import Foundation
import UbiquityBase
import UbiquityCore

/// Imports other peers' logs from the container (Docs/SyncSemantics.md): finds logs above the local
/// knowledge, verifies each (quarantining bad ones), orders them causally and applies them in
/// one SQLite transaction. One bad log never stops the others: a log that cannot be read, fails
/// verification (`TransactionLog(decoding:model:)`), is stamped too far ahead of this machine's
/// clock, or that the store refuses, is quarantined; its author's later logs wait for it, and
/// every other peer's logs go on.
package struct Importer {
    let store: PersistentStore
    let location: ContainerLocation
    let quarantineDirectory: String
    let logger: UbiquityLogger
    /// The largest log file read; larger ones are quarantined.
    var maxLogBytes = TransactionLog.maximumFileSize
    /// Fewer applied logs than this are freed on the calling thread: a thread would cost more.
    var releaseElsewhereMinimum = 64
    /// Fewer candidate logs than this are decoded on the calling thread, one after the other:
    /// a second thread would cost more than it saves (`LogDecodePipeline`).
    package var pipelineMinimum = 64
    /// Whether a second core may decode (only when this process may run on more than one CPU).
    package var decodesOnSecondCore = CPUAffinity.usable > 1
    /// Told what the pipeline did, when it ran (tests).
    package var onPipeline: ((PipelineUse) -> Void)?
    /// Told of the logs found and of each one read and checked (`nil`: nobody listens).
    package var activity: ActivityReporter?

    /// What the pipeline did in an import.
    package enum PipelineUse: Sendable, Equatable {
        /// The first chunk of the batch, `logs` logs, merged; the first `whileDecoding` of them as
        /// they came from the worker, the rest once every log was decoded and in causal order.
        case merged(logs: Int, whileDecoding: Int)
        /// Something out of the ordinary: the import went the one-thread way over the decoded logs.
        case abandoned
    }

    package init(store: PersistentStore, location: ContainerLocation, quarantineDirectory: String, logger: UbiquityLogger) {
        self.store = store
        self.location = location
        self.quarantineDirectory = quarantineDirectory
        self.logger = logger
    }

    struct Candidate: Sendable {
        let peerID: String
        let number: Int64
        let relativePath: String
        let entry: DirectoryEntry
        /// `entry.settledSignature` as it was when `entry` was asked of the file system: a
        /// signature names the file's bytes only if its change was settled at that moment
        /// (`DecodedLogCache`), not at a later one.
        let settledSignature: String?
        /// The log folder as its listing opened it: the file is read by name in it (`nil`: by path).
        let folder: OpenFolder?

        init(peerID: String, number: Int64, relativePath: String, entry: DirectoryEntry, folder: OpenFolder? = nil) {
            (self.peerID, self.number, self.relativePath, self.entry, self.folder) = (peerID, number, relativePath, entry, folder)
            // (A log too large to be kept needs none.)
            settledSignature = entry.size <= DecodedLogCache.largestLog ? entry.settledSignature : nil
        }
    }

    /// Imports every applicable log (from `scan`, this round's listing, when the caller has one), `batchSize`
    /// logs per SQLite transaction, calling `onBatch` after each committed batch with the objects it changed.
    package func importAvailable(batchSize: Int = .max, scan: ContainerScan? = nil, onBatch: (ObjectChanges) -> Void = { _ in }) throws -> ImportReport {
        var report = ImportReport()
        let knowledge = store.knowledge
        let now = store.now
        let records = Dictionary(try store.quarantined().map { ($0.path, $0) }, uniquingKeysWith: { first, _ in first })
        // Logs set aside (before or in this pass) and still there, by author and number, with
        // the reason: their authors' later logs wait for them.
        var setAside: [String: [Int64: String]] = [:]
        var candidates: [Candidate] = []
        // Logs behind a quarantined one of their author: they cannot apply, so they are counted
        // as waiting without being read (with when the oldest arrived).
        var unread: [String: (count: Int, arrived: Double)] = [:]
        // One listing of the container (`ContainerScan`), its model folders too: logs of another
        // version are named in the verbose log.
        let scan = scan ?? ContainerScan(location: location, modelVersions: true)
        // Names that are no peer's folder are reported in the root's order, among the peers' own.
        var strangers = scan.strangers[...]
        for folder in scan.peerFolders {
            while let stranger = strangers.first, stranger.name < folder.peerID {
                report.ignored.append(stranger.name)
                strangers.removeFirst()
            }
            for other in logger.level >= .verbose ? scan.otherModels(of: folder) : [] { // only named at verbose: not even listed otherwise
                logger.log(.verbose, .importer, "scan", "skipped \(folder.peerID)/\(location.contentName)/\(other.name): other model version")
            }
            var found: [Candidate] = []
            // Names first: a log already imported is judged by its name alone, without a stat, a path or a hash of the peer ID.
            let floor = knowledge[folder.peerID]
            for entry in folder.entries {
                if entry.kind == .receipt || entry.kind == .temporary { continue }
                // A duplicate copy is read only in place of a missing log (`standInCopies`).
                let number = folder.logNumber(entry)
                if let number, number <= floor {
                    logger.log(.verbose, .importer, "scan", "skipped \(location.relativeLogPath(folder.peerID, entry.name)): already imported (knowledge of \(folder.peerID) is \(floor))")
                    continue
                }
                let relativePath = location.relativeLogPath(folder.peerID, entry.name)
                // A folder, link or FIFO named like a log is not one (doctor reports it).
                guard let file = entry.file, file.isRegularFile, let number else {
                    report.ignored.append(relativePath)
                    continue
                }
                // A known-bad file, unchanged since, is not even read.
                if let record = records[relativePath], record.holds(for: file, now: now) {
                    setAside[folder.peerID, default: [:]][number] = record.reason
                    logger.log(.verbose, .importer, "scan", "skipped \(relativePath): quarantined (\(record.reason))")
                    continue
                }
                found.append(Candidate(peerID: folder.peerID, number: number, relativePath: relativePath, entry: file, folder: entry.folder))
            }
            // The lowest quarantined number no other file stands in for blocks everything above it.
            let blocking = setAside[folder.peerID]?.keys.filter { number in !found.contains { $0.number == number } }.min() ?? .max
            for candidate in found {
                if candidate.number > blocking {
                    unread[folder.peerID, default: (0, .infinity)].count += 1
                    unread[folder.peerID]!.arrived = min(unread[folder.peerID]!.arrived, candidate.entry.modificationTime)
                    logger.log(.verbose, .importer, "scan", "skipped \(candidate.relativePath): behind quarantined transaction \(blocking)")
                } else {
                    logger.log(.verbose, .importer, "scan", "considering \(candidate.relativePath)")
                    candidates.append(candidate)
                }
            }
        }
        report.ignored += strangers.map(\.name)
        if !candidates.isEmpty { activity?.begin(logs: candidates.count, bytes: candidates.reduce(0) { $0 + $1.entry.size }) }
        if !report.ignored.isEmpty {
            logger.log(.info, .importer, "scan", "ignoring \(report.ignored.count) name(s) that are not logs: \(report.ignored.prefix(5).joined(separator: ", "))")
        }

        // Decode and verify; one log per (peer, number), of this store's content epoch. A file
        // quarantined earlier that now verifies (a file-sync tool exposed it before it had all
        // arrived, or wrote it unreadable first) loses its record.
        let epoch = try store.contentEpoch()
        // A verified log holds external values only for attributes that allow them
        // (`AttributeDescription.validateKind`): without such attributes there is none to await.
        let externalValues = store.model.entities.contains { $0.attributes.contains(where: \.allowsExternalBinaryDataStorage) }
        var pending: [String: [Int64: (log: TransactionLog, arrived: Double)]] = [:]
        // Logs whose external data has not arrived, by author and number: what they wait for.
        var dataWaits: [String: [Int64: String]] = [:]
        var byLog: [String: Candidate] = [:]
        // The plain bytes each log of the one-thread way was decoded from: those left waiting
        // at the end are kept decoded (`DecodedLogCache`) for the next sync.
        var plainBytes: [String: [UInt8]] = [:]
        func enqueue(_ log: TransactionLog, of candidate: Candidate) {
            pending[candidate.peerID, default: [:]][candidate.number] = (log, candidate.entry.modificationTime)
            byLog["\(candidate.peerID):\(candidate.number)"] = candidate
        }
        // Decoding on a second core, ahead of the merge (`LogDecodePipeline`), when one is free
        // to use and the candidates come in the order the batch applies them.
        let pipeline = decodesAhead(candidates, records: records, externalValues: externalValues)
            ? LogDecodePipeline(count: candidates.count) { [candidates, location, model = store.model, maxLogBytes, activity] index in
                defer { activity?.advance(bytes: candidates[index].entry.size) }
                return Self.decode(candidates[index], location: location, model: model, maxLogBytes: maxLogBytes, keepingBytes: false, epoch: epoch, now: now)
            } : nil
        defer { pipeline?.finish() }
        /// Checks a candidate's decoded log, quarantining it if it fails, and adds it to `pending`.
        func admit(_ candidate: Candidate, _ outcome: () -> DecodeOutcome) throws {
            if pending[candidate.peerID]?[candidate.number] != nil {
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
                    if plain, let read, read.count <= DecodedLogCache.largestLog { plainBytes["\(candidate.peerID):\(candidate.number)"] = read }
                }
                guard log.peerID == candidate.peerID else { throw LogError.wrongAuthor(folder: candidate.peerID, log: log.peerID) }
                guard log.transactionNumber == candidate.number else {
                    throw LogError.wrongNumber(fileName: candidate.entry.name, log: log.transactionNumber)
                }
                guard log.contentEpoch == epoch else {
                    // Saved before its author knew of a removal (or after one this store has not
                    // seen yet): not this content. Left alone, never applied, never quarantined.
                    try clearRecord(of: candidate, records)
                    report.ignored.append(candidate.relativePath)
                    logger.log(.verbose, .importer, "scan", "skipped \(candidate.relativePath): it belongs to content epoch \(log.contentEpoch ?? "(first)"), this store is in \(epoch ?? "(first)")")
                    return
                }
                // Adopting a stamp far ahead would drag this peer's clock, and every stamp it
                // writes after, toward the largest a stamp can hold.
                guard !log.stamp.isTooFarAhead(of: now) else { throw LogError.stampTooFarAhead(log.stamp, now: now) }
                try clearRecord(of: candidate, records)
                // Its external values first: a log never applies without them (Docs/ContainerFormat.md, "External binary data").
                if externalValues, let wait = try awaitExternalData(of: log, records: records, now: now, report: &report) {
                    report.missingExternalData.append(wait)
                    dataWaits[candidate.peerID, default: [:]][candidate.number] = wait.sha256
                    return
                }
                enqueue(log, of: candidate)
            } catch let error as LogError {
                var retryAfter: Double?
                if case let .stampTooFarAhead(stamp, _) = error { retryAfter = Double(stamp.wallMilliseconds) / 1000 - Stamp.maximumLead }
                try quarantine(candidate, reason: error.description, retryAfter: retryAfter, bytes: bytes)
                report.quarantined.append((candidate.relativePath, error.description))
                setAside[candidate.peerID, default: [:]][candidate.number] = error.description
            }
        }

        // Causal order: a log applies once its author's previous log has, and the local
        // knowledge covers everything else its author had seen.
        var simulated = knowledge
        var batch: [TransactionLog] = []
        func order() {
            var progress = true
            while progress {
                progress = false
                for peer in pending.keys.sorted() {
                    while let next = pending[peer]?[simulated[peer] + 1]?.log, simulated.dominates(next.knowledge.removing(peer)) {
                        batch.append(next)
                        simulated[peer] = next.transactionNumber
                        pending[peer]![next.transactionNumber] = nil
                        progress = true
                    }
                }
            }
        }

        // With the pipeline, the first chunk of the batch is merged while later logs are still
        // being decoded: a log that is the batch's next (the candidates come by author and
        // number, so its author's run in the first round of `order`) goes to the store as soon
        // as it is decoded; once one is not, the rest wait for `order`. The chunk commits only
        // once every candidate is decoded and found to need nothing but `pending` — no
        // quarantine, record, log line or report entry; anything else rolls it back and the
        // import goes the one-thread way over the same decoded logs, so the outcome never
        // depends on the pipeline.
        var firstChunk: (application: ImportApplication, logs: [TransactionLog])?
        if let pipeline {
            let chunkSize = max(1, batchSize)
            var index = 0, running = true, handed = 0, ordered = false, whileDecoding = 0
            do {
                firstChunk = try store.applyImported(pulling: {
                    while index < candidates.count {
                        let candidate = candidates[index]
                        guard case let .decoded(log, nil, _) = pipeline.outcome(at: index), log.peerID == candidate.peerID,
                              log.transactionNumber == candidate.number, log.contentEpoch == epoch, !log.stamp.isTooFarAhead(of: now) else {
                            throw AbandonedPipeline()
                        }
                        index += 1
                        enqueue(log, of: candidate)
                        guard running, handed < chunkSize, log.transactionNumber == simulated[log.peerID] + 1,
                              simulated.dominates(log.knowledge.removing(log.peerID)) else {
                            running = false
                            continue
                        }
                        simulated[log.peerID] = log.transactionNumber
                        pending[log.peerID]![log.transactionNumber] = nil
                        batch.append(log)
                        handed += 1
                        return log
                    }
                    if !ordered {
                        ordered = true
                        whileDecoding = handed
                        order()
                    }
                    guard handed < min(batch.count, chunkSize) else {
                        // Nothing to apply: no transaction, as without the pipeline.
                        if handed == 0 { throw AbandonedPipeline() }
                        return nil
                    }
                    handed += 1
                    return batch[handed - 1]
                }, expectedLogs: min(candidates.count, chunkSize))
                onPipeline?(.merged(logs: handed, whileDecoding: whileDecoding))
            } catch is AbandonedPipeline {
                (pending, byLog, simulated, batch) = ([:], [:], knowledge, [])
                onPipeline?(.abandoned)
            }
        }
        if firstChunk == nil {
            for (index, candidate) in candidates.enumerated() {
                try admit(candidate) {
                    pipeline?.outcome(at: index)
                        ?? Self.decode(candidate, location: location, model: store.model, maxLogBytes: maxLogBytes, keepingBytes: true, epoch: epoch, now: now)
                }
                // With the pipeline, its worker told of each log as it decoded it.
                if pipeline == nil { activity?.advance(bytes: candidate.entry.size) }
            }
            order()
        }

        // Apply, each log on its own inside the batch: a log the store refuses is quarantined
        // and what depends on it waits, back in `pending`.
        var refused: [(peerID: String, number: Int64)] = []
        var start = 0
        while start < batch.count {
            let next = Array(batch[start..<min(batch.count, start + max(1, batchSize))])
            start += next.count
            var chunk: [TransactionLog] = []
            let result: ImportApplication
            if let first = firstChunk.take() {
                (result, chunk) = (first.application, first.logs)
            } else {
                for log in next {
                    if refused.contains(where: { log.knowledge.covers(peer: $0.peerID, number: $0.number) }) {
                        pending[log.peerID, default: [:]][log.transactionNumber] = (log, byLog["\(log.peerID):\(log.transactionNumber)"]?.entry.modificationTime ?? 0)
                    } else {
                        chunk.append(log)
                    }
                }
                guard !chunk.isEmpty else { continue }
                result = try store.applyImported(chunk)
            }
            report.changes.merge(result.changes)
            report.applied += result.applied
            report.appliedBytes += result.applied.reduce(0) { $0 + (byLog["\($1.peerID):\($1.number)"]?.entry.size ?? 0) }
            if !DecodedLogCache.shared.isEmpty {
                DecodedLogCache.shared.forget(result.applied.compactMap { byLog["\($0.peerID):\($0.number)"].map { location.absolute($0.relativePath) } })
            }
            if !result.changes.isEmpty { onBatch(result.changes) }
            for (peer, number, reason) in result.refused {
                refused.append((peer, number))
                setAside[peer, default: [:]][number] = reason
                if let candidate = byLog["\(peer):\(number)"] {
                    try quarantine(candidate, reason: reason, retryAfter: nil, bytes: nil)
                    report.quarantined.append((candidate.relativePath, reason))
                }
            }
            for (peer, number) in result.deferred {
                if let log = chunk.first(where: { $0.peerID == peer && $0.transactionNumber == number }) {
                    pending[peer, default: [:]][number] = (log, byLog["\(peer):\(number)"]?.entry.modificationTime ?? 0)
                }
            }
            if logger.level >= .verbose {
                for (peer, number) in result.applied {
                    guard let log = chunk.first(where: { $0.peerID == peer && $0.transactionNumber == number }) else { continue }
                    logger.log(.verbose, .importer, "importLog:", "applied transaction \(number) of \(peer) (\(log.inserted.count) inserted, \(log.updated.count) updated, \(log.deleted.count) deleted)")
                }
            }
        }
        // The applied logs are freed on another thread, beside what is left of the import: the
        // pipeline's worker, else (a few percent of a large import) a thread of their own when
        // there is a second CPU to run it on.
        if let pipeline {
            batch = []
            pipeline.releaseOutcomes()
        } else if batch.count >= releaseElsewhereMinimum, CPUAffinity.usable > 1 {
            let applied = AppliedLogs(batch)
            batch = []
            Thread.detachNewThread { applied.logs = [] }
        }

        // What waits is kept decoded: the next sync reads it again only if its file changed.
        for (peer, logs) in pending {
            for (number, waiting) in logs {
                let key = "\(peer):\(number)"
                guard let bytes = plainBytes[key], let candidate = byLog[key] else { continue }
                DecodedLogCache.shared.keep(waiting.log, from: bytes, at: location.absolute(candidate.relativePath),
                                            signature: candidate.settledSignature, model: store.model, watched: candidate.folder?.memo)
            }
        }

        // What waits, and for what: a missing predecessor, or one set aside as damaged.
        let appliedNow = store.knowledge
        for peer in Set(pending.keys).union(unread.keys).sorted() {
            let logs = pending[peer] ?? [:], skipped = unread[peer]
            let count = logs.count + (skipped?.count ?? 0)
            guard count > 0 else { continue }
            report.waiting += count
            let next = appliedNow[peer] + 1
            for number in logs.keys.sorted() {
                let reason = logs[next] == nil ? "waiting for its predecessor \(next)" : "waiting for transactions of other peers it has seen"
                logger.log(.verbose, .importer, "scan", "skipped transaction \(number) of \(peer): \(reason)")
            }
            guard logs[next] == nil else { continue }
            if let hash = dataWaits[peer]?[next] {
                logger.log(.warning, .importer, "scan", "transaction \(next) of peer \(peer) waits for external data \(hash); \(count) later log(s) wait behind it")
                continue
            }
            let since = Date(timeIntervalSince1970: min(logs.values.map(\.arrived).min() ?? .infinity, skipped?.arrived ?? .infinity))
            let quarantined = setAside[peer]?[next]
            report.missingPredecessors.append(.init(peerID: peer, number: next, waitingSince: since, quarantineReason: quarantined))
            if let quarantined {
                logger.log(.warning, .importer, "scan", "transaction \(next) of peer \(peer) is quarantined (\(quarantined)); \(count) later log(s) wait for a quarantined predecessor")
            } else {
                logger.log(.warning, .importer, "scan", "missing transaction \(next) of peer \(peer) since \(since); \(count) later log(s) wait for it")
            }
        }
        report.waiting += report.missingExternalData.count
        // Values a joined baseline brought whose files had not arrived then.
        var storeWaits: [String] = []
        for reference in try store.missingExternalData() {
            switch location.fetchExternalData(reference, into: store.externalData) {
            case .present: continue
            case .missing, .locked: storeWaits.append("a value in the store waits for external data \(reference.sha256): not arrived yet")
            case let .damaged(path, reason): storeWaits.append("a value in the store waits for external data \(reference.sha256): \(path) is damaged (\(reason))")
            }
        }
        try store.recordExternalDataWaits(report.missingExternalData.map(\.line) + storeWaits)
        return report
    }

    /// Applied logs on their way to another thread, which drops the last reference to them.
    private final class AppliedLogs: @unchecked Sendable {
        // @unchecked: only the receiving thread touches `logs` once the box is handed over.
        var logs: [TransactionLog]
        init(_ logs: [TransactionLog]) { self.logs = logs }
    }

    /// What reading and decoding one candidate gave (`decode`).
    enum DecodeOutcome: Sendable {
        /// Encrypted content this device has no key for: the file is not damaged, only closed.
        case locked
        /// The log, and the bytes it was decoded from when a later check may quarantine it;
        /// `plain`: the file held them as they are (not sealed).
        case decoded(TransactionLog, bytes: [UInt8]?, plain: Bool)
        /// Unreadable or not a valid log; `bytes` when the file could be read and opened.
        case failed(any Error, bytes: [UInt8]?)
    }

    /// The pipeline gave up on merging while decoding: the import goes the one-thread way.
    private struct AbandonedPipeline: Error {}

    /// Reads, opens and decodes (verifying its checksum) one candidate log. It touches nothing
    /// but the file, so it runs on any thread (`LogDecodePipeline`). Without `keepingBytes`, a
    /// decoded log's bytes are kept only when the importer's checks will quarantine it.
    static func decode(_ candidate: Candidate, location: ContainerLocation, model: ObjectModel, maxLogBytes: Int,
                       keepingBytes: Bool, epoch: String?, now: Double) -> DecodeOutcome {
        let bytes: [UInt8], plain: Bool
        let path = location.absolute(candidate.relativePath)
        func decoded(_ log: TransactionLog) -> DecodeOutcome {
            let refused = log.peerID != candidate.peerID || log.transactionNumber != candidate.number
                || (log.contentEpoch == epoch && log.stamp.isTooFarAhead(of: now))
            return .decoded(log, bytes: keepingBytes || refused ? bytes : nil, plain: plain)
        }
        // A log that waited since the last sync, its file unchanged, is not read again.
        if let kept = DecodedLogCache.shared.log(at: path, model: model, signature: candidate.settledSignature, watched: candidate.folder?.memo),
           kept.bytes.count <= maxLogBytes {
            (bytes, plain) = (kept.bytes, true)
            return decoded(kept.log)
        }
        // The folder was listed through the confinement check already; the sealing opens the bytes.
        do {
            let limit = SealedFile.sealedSize(ofAtMost: maxLogBytes)
            let raw: [UInt8]
            if let folder = candidate.folder { raw = try folder.read(candidate.entry.name, limit: limit) } else { raw = try AtomicFile.read(path, limit: limit) }
            plain = !SealedFile.isSealed(raw)
            bytes = try location.sealing.open(raw, path: path)
        } catch {
            if ContentSealing.isNoKey(error) { return .locked }
            return .failed(LogError.unreadable(error.message), bytes: nil)
        }
        // One that waited and changed only its times decodes as it did.
        if plain, bytes.count <= maxLogBytes,
           let log = DecodedLogCache.shared.log(at: path, model: model, bytes: bytes, signature: candidate.settledSignature, watched: candidate.folder?.memo) {
            return decoded(log)
        }
        do {
            return decoded(try TransactionLog(decoding: bytes, model: model, maxBytes: maxLogBytes))
        } catch {
            return .failed(error, bytes: bytes)
        }
    }

    /// Whether to decode on a second core while merging: only with more than one CPU to run on
    /// (`taskset -c 0` gets the one-thread import), enough logs to pay for a thread, candidates
    /// by author and number (the order the batch takes them), none with a quarantine record and
    /// no external values to wait for (those need the store between decode and merge).
    private func decodesAhead(_ candidates: [Candidate], records: [String: QuarantineRecord], externalValues: Bool) -> Bool {
        guard candidates.count >= pipelineMinimum, !externalValues, decodesOnSecondCore else { return false }
        return zip(candidates, candidates.dropFirst()).allSatisfy { ($0.peerID, $0.number) < ($1.peerID, $1.number) }
            && !candidates.contains { records[$0.relativePath] != nil }
    }

    /// Brings in the external values `log` names (`ContainerLocation.fetchExternalData`);
    /// returns what it waits for when one is not there yet or its file is damaged. A damaged
    /// file is quarantined (recorded, not copied: it may be large) and, unchanged, not read again.
    private func awaitExternalData(of log: TransactionLog, records: [String: QuarantineRecord], now: Double,
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
                report.quarantined.append((path, reason))
                return .init(peerID: log.peerID, number: log.transactionNumber, sha256: reference.sha256, damage: reason)
            }
        }
        return nil
    }

    /// A file that verifies now loses an earlier record (it was whole only later).
    private func clearRecord(of candidate: Candidate, _ records: [String: QuarantineRecord]) throws {
        guard records[candidate.relativePath] != nil else { return }
        try store.clearQuarantine(path: candidate.relativePath)
        logger.log(.warning, .importer, "scan", "\(candidate.relativePath) is whole now: no longer quarantined")
    }

    /// Sets a bad file aside: a copy in the local quarantine folder and a record in the store,
    /// so the file is skipped unread (and reported by `doctor`) until it changes.
    /// `bytes`: the file's bytes when they were read already.
    private func quarantine(_ candidate: Candidate, reason: String, retryAfter: Double?, bytes: [UInt8]?) throws {
        logger.error(.importer, "quarantine:", "quarantined \(candidate.relativePath): \(reason)")
        let source = location.absolute(candidate.relativePath)
        let target = quarantineDirectory + "/" + candidate.relativePath.replacingOccurrences(of: "/", with: "__")
        // The copy is of the plaintext when the file opened (a file of the device, never the cloud's).
        if let bytes = bytes ?? (try? location.read(source, limit: maxLogBytes)) ?? (try? AtomicFile.read(source, limit: maxLogBytes)) {
            try? AtomicFile.makeDirectory(quarantineDirectory)
            try? AtomicFile.write(bytes, to: target)
        }
        try store.recordQuarantine(path: candidate.relativePath, file: candidate.entry, reason: reason, retryAfter: retryAfter)
    }
}
