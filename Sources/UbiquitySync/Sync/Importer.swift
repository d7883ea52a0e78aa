import Foundation
import UbiquityBase
import UbiquityCore

/// Imports other peers' logs from the container (DESIGN §4): finds logs above the local
/// knowledge, verifies each (quarantining bad ones), orders them causally and applies them in
/// one SQLite transaction.
package struct Importer {
    let store: PersistentStore
    let location: ContainerLocation
    let quarantineDirectory: String
    let logger: UbiquityLogger
    /// The largest log file read; larger ones are quarantined.
    var maxLogBytes = 64 << 20

    package init(store: PersistentStore, location: ContainerLocation, quarantineDirectory: String, logger: UbiquityLogger) {
        self.store = store
        self.location = location
        self.quarantineDirectory = quarantineDirectory
        self.logger = logger
    }

    private struct Candidate {
        let peerID: String
        let number: Int64
        let relativePath: String
        let entry: DirectoryEntry
    }

    /// Imports every applicable log, `batchSize` logs per SQLite transaction, calling
    /// `onBatch` after each committed batch with the objects it changed.
    package func importAvailable(batchSize: Int = .max, onBatch: (ObjectChanges) -> Void = { _ in }) throws -> ImportReport {
        var report = ImportReport()
        let knowledge = store.knowledge
        var candidates: [Candidate] = []
        for folder in DirectoryEntry.list(location.ubiquityRoot) {
            // Dot folders are the container's own (.baseline, .content, .externalData) or temporary.
            guard !folder.name.hasPrefix(".") else { continue }
            guard folder.isDirectory, CloudNames.isValidPeerID(folder.name) else {
                report.ignored.append(folder.name)
                continue
            }
            for other in DirectoryEntry.list("\(location.ubiquityRoot)/\(folder.name)/\(location.contentName)") where other.isDirectory && other.name != location.modelHash {
                logger.log(.verbose, "PFUbiquityTransactionLogImporter", "scan", "skipped \(folder.name)/\(location.contentName)/\(other.name): other model version")
            }
            let relativeDirectory = "\(folder.name)/\(location.contentName)/\(location.modelHash)"
            let directory = location.logDirectory(of: folder.name)
            // Names first: a log already imported is judged by its name alone, without a stat.
            for name in DirectoryEntry.names(directory) {
                let relativePath = relativeDirectory + "/" + name
                if name == "receipt.0.cdt" || name.hasSuffix(".nosync") { continue }
                let number = TransactionLog.transactionNumber(inFileName: name)
                if let number, number <= knowledge[folder.name] {
                    logger.log(.verbose, "PFUbiquityTransactionLogImporter", "scan", "skipped \(relativePath): already imported (knowledge of \(folder.name) is \(knowledge[folder.name]))")
                    continue
                }
                guard let file = DirectoryEntry.at(directory + "/" + name), file.isRegularFile, let number else {
                    report.ignored.append(relativePath)
                    continue
                }
                if try store.isQuarantined(path: relativePath, size: file.size, modificationTime: file.modificationTime) {
                    logger.log(.verbose, "PFUbiquityTransactionLogImporter", "scan", "skipped \(relativePath): quarantined")
                    continue
                }
                logger.log(.verbose, "PFUbiquityTransactionLogImporter", "scan", "considering \(relativePath)")
                candidates.append(Candidate(peerID: folder.name, number: number, relativePath: relativePath, entry: file))
            }
        }
        if !report.ignored.isEmpty {
            logger.log(.info, "PFUbiquityTransactionLogImporter", "scan", "ignoring \(report.ignored.count) name(s) that are not logs: \(report.ignored.prefix(5).joined(separator: ", "))")
        }

        // Decode and verify; one log per (peer, number), of this store's content epoch. A file
        // quarantined earlier that now verifies (a file-sync tool exposed it before it had all
        // arrived) loses its record.
        let epoch = try store.contentEpoch()
        let quarantinedBefore = Set(try store.quarantined().map(\.path))
        var pending: [String: [Int64: (log: TransactionLog, arrived: Double)]] = [:]
        for candidate in candidates {
            if pending[candidate.peerID]?[candidate.number] != nil {
                report.ignored.append(candidate.relativePath)
                logger.log(.warning, "PFUbiquityTransactionLogImporter", "scan", "a second log for transaction \(candidate.number) of \(candidate.peerID) is ignored: \(candidate.relativePath)")
                continue
            }
            do {
                let path = location.ubiquityRoot + "/" + candidate.relativePath
                let bytes: [UInt8]
                do { bytes = try AtomicFile.read(path, limit: maxLogBytes) } catch { throw LogError.unparseable(error.message) }
                let log = try TransactionLog(decoding: bytes, model: store.model, maxBytes: maxLogBytes)
                guard log.peerID == candidate.peerID else { throw LogError.wrongAuthor(folder: candidate.peerID, log: log.peerID) }
                guard log.transactionNumber == candidate.number else {
                    throw LogError.wrongNumber(fileName: candidate.entry.name, log: log.transactionNumber)
                }
                if quarantinedBefore.contains(candidate.relativePath) {
                    try store.clearQuarantine(path: candidate.relativePath)
                    logger.log(.warning, "PFUbiquityTransactionLogImporter", "scan", "\(candidate.relativePath) is whole now: no longer quarantined")
                }
                guard log.contentEpoch == epoch else {
                    // Saved before its author knew of a removal (or after one this store has not
                    // seen yet): not this content. Left alone, never applied, never quarantined.
                    report.ignored.append(candidate.relativePath)
                    logger.log(.verbose, "PFUbiquityTransactionLogImporter", "scan", "skipped \(candidate.relativePath): it belongs to content epoch \(log.contentEpoch ?? "(first)"), this store is in \(epoch ?? "(first)")")
                    continue
                }
                pending[candidate.peerID, default: [:]][candidate.number] = (log, candidate.entry.modificationTime)
            } catch let error as LogError {
                try quarantine(candidate, reason: error.description)
                report.quarantined.append((candidate.relativePath, error.description))
            }
        }

        // Causal order: a log applies once its author's previous log has, and the local
        // knowledge covers everything else its author had seen.
        var simulated = knowledge
        var batch: [TransactionLog] = []
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
        for (peer, logs) in pending.sorted(by: { $0.key < $1.key }) where !logs.isEmpty {
            report.waiting += logs.count
            for number in logs.keys.sorted() {
                let reason = logs[simulated[peer] + 1] == nil ? "waiting for its predecessor \(simulated[peer] + 1)" : "waiting for transactions of other peers it has seen"
                logger.log(.verbose, "PFUbiquityTransactionLogImporter", "scan", "skipped transaction \(number) of \(peer): \(reason)")
            }
            if logs[simulated[peer] + 1] == nil {
                let since = Date(timeIntervalSince1970: logs.values.map(\.arrived).min() ?? 0)
                report.missingPredecessors.append(.init(peerID: peer, number: simulated[peer] + 1, waitingSince: since))
                logger.log(.warning, "PFUbiquityTransactionLogImporter", "scan", "missing transaction \(simulated[peer] + 1) of peer \(peer) since \(since); \(logs.count) later log(s) wait for it")
            }
        }
        if !batch.isEmpty {
            var start = 0
            while start < batch.count {
                let chunk = Array(batch[start..<min(batch.count, start + max(1, batchSize))])
                let changes = try store.applyImported(chunk)
                report.changes.merge(changes)
                report.applied += chunk.map { ($0.peerID, $0.transactionNumber) }
                if !changes.isEmpty { onBatch(changes) }
                start += chunk.count
            }
            for log in batch {
                logger.log(.verbose, "PFUbiquityTransactionLogImporter", "importLog:", "applied transaction \(log.transactionNumber) of \(log.peerID) (\(log.inserted.count) inserted, \(log.updated.count) updated, \(log.deleted.count) deleted)")
            }
        }
        return report
    }

    /// Sets a bad file aside: a copy in the local quarantine folder and a record in the store,
    /// so the file is skipped (and reported by `doctor`) until it changes.
    private func quarantine(_ candidate: Candidate, reason: String) throws {
        logger.log(.error, "PFUbiquityTransactionLogImporter", "quarantine:", "quarantined \(candidate.relativePath): \(reason)")
        let source = location.ubiquityRoot + "/" + candidate.relativePath
        let target = quarantineDirectory + "/" + candidate.relativePath.replacingOccurrences(of: "/", with: "__")
        if let bytes = try? AtomicFile.read(source, limit: maxLogBytes) {
            try? AtomicFile.makeDirectory(quarantineDirectory)
            try? AtomicFile.write(bytes, to: target)
        }
        try store.recordQuarantine(path: candidate.relativePath, size: candidate.entry.size,
                                   modificationTime: candidate.entry.modificationTime, reason: reason)
    }
}
