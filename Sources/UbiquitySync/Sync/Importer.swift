import Foundation
import UbiquityBase
import UbiquityCore
import Synchronization

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

    /// Imports every applicable log (from `scan`, this round's listing, when the caller has one), `batchSize`
    /// logs per SQLite transaction, calling `onBatch` after each committed batch with the objects it changed.
    /// The stages: scan the container, admit what verifies, order it causally, apply it, report what waits.
    package func importAvailable(batchSize: Int = .max, scan: ContainerScan? = nil, onBatch: (ObjectChanges) -> Void = { _ in }) throws -> ImportReport {
        var report = ImportReport()
        let knowledge = store.knowledge
        let now = store.now
        let records = Dictionary(try store.quarantined().map { ($0.path, $0) }, uniquingKeysWith: { first, _ in first })
        // One listing of the container (`ContainerScan`), its model folders too: logs of another
        // version are named in the verbose log.
        var scanned = scanLogs(scan ?? ContainerScan(location: location, modelVersions: true), knowledge: knowledge, records: records, now: now)
        let candidates = scanned.candidates
        report.ignored = scanned.ignored
        if !candidates.isEmpty { activity?.begin(logs: candidates.count, bytes: candidates.reduce(0) { $0 + $1.entry.size }) }
        if !report.ignored.isEmpty {
            logger.log(.info, .importer, "scan", "ignoring \(report.ignored.count) name(s) that are not logs: \(report.ignored.prefix(5).joined(separator: ", "))")
        }

        // A verified log holds external values only for attributes that allow them
        // (`AttributeDescription.validateKind`): without such attributes there is none to await.
        let checks = AdmissionChecks(records: records, now: now, epoch: try store.contentEpoch(),
                                     externalValues: store.model.entities.contains { $0.attributes.contains(where: \.allowsExternalBinaryDataStorage) })
        let pipeline = decodesAhead(candidates, records: records, externalValues: checks.externalValues) ? decodePipeline(candidates, checks: checks) : nil
        defer { pipeline?.finish() }
        var admitted = AdmittedLogs()
        var ordered = OrderedLogs(knowledge: knowledge)
        var firstChunk = try pipeline.flatMap {
            try mergeWhileDecoding($0, candidates: candidates, checks: checks, batchSize: batchSize, admitted: &admitted, ordered: &ordered)
        }
        if firstChunk == nil {
            let source: any DecodedLogSource = pipeline.map(PipelinedDecoding.init)
                ?? InlineDecoding(candidates: candidates, location: location, model: store.model, maxLogBytes: maxLogBytes, checks: checks, activity: activity)
            for (index, candidate) in candidates.enumerated() {
                try admit(candidate, checks: checks, into: &admitted, setAside: &scanned.setAside, report: &report) { source.outcome(at: index) }
                source.admitted(index)
            }
            ordered.extend(from: &admitted)
        }
        try apply(ordered.batch, first: &firstChunk, batchSize: batchSize, admitted: &admitted, setAside: &scanned.setAside,
                  report: &report, onBatch: onBatch)
        release(&ordered.batch, pipeline: pipeline)
        keepDecoded(admitted)
        try reportWaits(admitted, scanned: scanned, into: &report)
        return report
    }

    /// Decoding on a second core, ahead of the merge (`LogDecodePipeline`).
    private func decodePipeline(_ candidates: [Candidate], checks: AdmissionChecks) -> LogDecodePipeline<DecodeOutcome> {
        LogDecodePipeline(count: candidates.count) { [candidates, location, model = store.model, maxLogBytes, activity, epoch = checks.epoch, now = checks.now] index in
            defer { activity?.advance(bytes: candidates[index].entry.size) }
            return Self.decode(candidates[index], location: location, model: model, maxLogBytes: maxLogBytes, keepingBytes: false, epoch: epoch, now: now)
        }
    }

    /// The applied logs are freed on another thread, beside what is left of the import: the
    /// pipeline's worker, else (a few percent of a large import) a thread of their own when
    /// there is a second CPU to run it on.
    private func release(_ batch: inout [TransactionLog], pipeline: LogDecodePipeline<DecodeOutcome>?) {
        if let pipeline {
            batch = []
            pipeline.releaseOutcomes()
        } else if batch.count >= releaseElsewhereMinimum, CPUAffinity.usable > 1 {
            let applied = AppliedLogs(batch)
            batch = []
            Thread.detachNewThread { applied.logs.withLock { $0 = [] } }
        }
    }

    /// Applied logs on their way to another thread, which drops the last reference to them.
    private final class AppliedLogs: Sendable {
        let logs: Mutex<[TransactionLog]>
        init(_ logs: [TransactionLog]) { self.logs = Mutex(logs) }
    }

    /// Whether to decode on a second core while merging: only with more than one CPU to run on
    /// (`taskset -c 0` gets the one-thread import), enough logs to pay for a thread, candidates
    /// by author and number (the order the batch takes them), none with a quarantine record and
    /// no external values to wait for (those need the store between decode and merge).
    private func decodesAhead(_ candidates: [Candidate], records: [String: QuarantineRecord], externalValues: Bool) -> Bool {
        guard candidates.count >= pipelineMinimum, !externalValues, decodesOnSecondCore else { return false }
        return zip(candidates, candidates.dropFirst()).allSatisfy { $0.id < $1.id }
            && !candidates.contains { records[$0.relativePath] != nil }
    }

    /// Sets a bad file aside: a copy in the local quarantine folder and a record in the store,
    /// so the file is skipped unread (and reported by `doctor`) until it changes.
    /// `bytes`: the file's bytes when they were read already.
    func quarantine(_ candidate: Candidate, reason: String, retryAfter: Double?, bytes: [UInt8]?) throws {
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
