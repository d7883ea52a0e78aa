import Foundation
import UbiquityBase
import UbiquityCore
import UbiquityPlist

/// Writes the outbox into the container: each pending log atomically into the peer's own
/// folder, then marks it sent. A failure leaves the rest in the outbox for the next flush; a
/// crash between the write and the mark rewrites the same file with the same bytes.
package struct Exporter {
    let store: PersistentStore
    let location: ContainerLocation
    let logger: UbiquityLogger

    package init(store: PersistentStore, location: ContainerLocation, logger: UbiquityLogger) {
        self.store = store
        self.location = location
        self.logger = logger
    }

    /// Returns how many logs were written; throws `SyncError.containerUnwritable` when the
    /// container refuses a write (the remaining logs stay in the outbox).
    package func flush() throws -> Int {
        let pending = try store.pendingOutbox()
        guard !pending.isEmpty else { return 0 }
        let directory = location.logDirectory(of: store.peerID)
        var written = 0
        do {
            try AtomicFile.makeDirectory(directory)
            for entry in pending {
                // The file carries its export time on this peer's clock: garbage collection
                // judges a log's age by it, and file-sync tools keep it.
                let path = directory + "/" + entry.fileName
                try AtomicFile.write(entry.bytes, to: path, modificationTime: store.now)
                try store.markSent(entry.number, file: DirectoryEntry.at(path))
                written += 1
                logger.log(.verbose, "PFUbiquityTransactionLogExporter", "exportLog:", "wrote transaction \(entry.number) as \(entry.fileName) (\(entry.bytes.count) bytes)")
            }
        } catch let error as FileError {
            logger.log(.warning, "PFUbiquityTransactionLogExporter", "exportLog:", "\(error); \(pending.count - written) log(s) wait in the outbox")
            throw SyncError.containerUnwritable(path: error.path, reason: error.message)
        }
        return written
    }

    /// Writes again, from the copy kept since, each of this peer's logs whose file in the
    /// container is gone or no longer holds what was sent: damaged in the cloud or by a
    /// file-sync tool, or deleted by a removal that lost to a later one. Copies are kept only
    /// for the store's own content epoch and until garbage collection collects them, so a log
    /// collected on purpose, or of content this peer left after a removal, never comes back
    /// (one written before this peer heard of a removal comes back in its old epoch, which
    /// nobody applies). Returns the transaction numbers written again.
    package func repairSentLogs() throws -> [Int64] {
        let directory = location.logDirectory(of: store.peerID)
        let files = Dictionary(DirectoryEntry.list(directory).map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        var repaired: [Int64] = []
        for sent in try store.sentLogs() {
            let file = files[sent.file]
            if let file, file.size == sent.size && file.modificationTime == sent.modificationTime && file.inode == sent.inode { continue }
            guard let kept = try store.sentBytes(sent.number) else { continue }
            let path = directory + "/" + sent.file
            if let file, (try? AtomicFile.read(path, limit: kept.count + 1)) == kept {
                try store.updateSent(sent.number, file: file)   // the same bytes, delivered again
                continue
            }
            try writeAgain(kept, to: path, in: directory)
            if let rewritten = DirectoryEntry.at(path) { try store.updateSent(sent.number, file: rewritten) }
            logger.log(.error, "PFUbiquityTransactionLogExporter", "repairLog:", "transaction \(sent.number) \(file == nil ? "was gone from" : "no longer held what this peer sent in") the container: written again from its copy")
            repaired.append(sent.number)
        }
        return repaired
    }

    /// Writes again each of this peer's logs that garbage collection deleted and the current
    /// `baseline` lacks: a file-sync tool kept, under the baseline's name, a concurrent baseline
    /// rolled elsewhere (two machines rolled and collected while apart), or one of removed
    /// content (`baseline` is then `nil`: none of this content's). Peers that start from it
    /// would never get those transactions otherwise; this peer starts from it too and imports its
    /// own logs again. Returns the transaction numbers written.
    package func restoreCollectedLogs(baseline: BaselineMetadata?) throws -> [Int64] {
        let covered = baseline?.knowledge[store.peerID] ?? 0
        let directory = location.logDirectory(of: store.peerID)
        let present = Set(DirectoryEntry.names(directory))
        var restored: [Int64] = []
        for log in try store.collectedLogs() where log.number > covered && !present.contains(log.file) {
            guard let bytes = try store.collectedBytes(log.number) else { continue }
            let path = directory + "/" + log.file
            try writeAgain(bytes, to: path, in: directory)
            if let file = DirectoryEntry.at(path) { try store.restoreCollected(log.number, file: file) }
            let why = baseline.map { "the current baseline (\($0.author)'s, at \(covered) of this peer) lacks it" } ?? "no baseline of this content holds it"
            logger.log(.error, "PFUbiquityTransactionLogExporter", "restoreLog:", "transaction \(log.number) was collected, and \(why): written again from this peer's copy")
            restored.append(log.number)
        }
        return restored
    }

    /// The knowledge of the baseline this peer sees as current, as its receipt records it.
    func currentBaselineKnowledge() -> KnowledgeVector {
        (try? BaselineMetadata.current(at: location, for: store))?.knowledge ?? KnowledgeVector()
    }

    /// Whether this peer's receipt is missing, or records another content epoch or another
    /// baseline than the current ones.
    package func receiptIsStale() -> Bool {
        guard let bytes = try? AtomicFile.read(location.receiptPath(of: store.peerID), limit: 1 << 20),
              let receipt = try? Receipt(decoding: bytes) else { return true }
        return receipt.contentEpoch != (try? store.contentEpoch()) ?? nil || receipt.baselineKnowledge != currentBaselineKnowledge()
    }

    /// Writes a log again from this peer's copy, stamped with its export time as `flush` does.
    private func writeAgain(_ bytes: [UInt8], to path: String, in directory: String) throws {
        do {
            try AtomicFile.makeDirectory(directory)
            try AtomicFile.write(bytes, to: path, modificationTime: store.now)
        } catch {
            throw SyncError.containerUnwritable(path: error.path, reason: error.message)
        }
    }

    /// Rewrites this peer's receipt with its current knowledge, its content epoch and the
    /// current baseline's knowledge.
    package func writeReceipt() throws {
        let receipt = Receipt(peerID: store.peerID, knowledge: store.knowledge, date: store.now, modelVersionHash: location.modelHash,
                              contentEpoch: try store.contentEpoch(), baselineKnowledge: currentBaselineKnowledge())
        let directory = location.logDirectory(of: store.peerID)
        do {
            try AtomicFile.makeDirectory(directory)
            try AtomicFile.write(PlistSeam.encode(receipt.plistValue, format: .binary), to: location.receiptPath(of: store.peerID))
        } catch {
            throw SyncError.containerUnwritable(path: error.path, reason: error.message)
        }
    }
}
