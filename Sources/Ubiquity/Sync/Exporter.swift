import Foundation
import UbiquityPlist

/// Writes the outbox into the container: each pending log atomically into the peer's own
/// folder, then marks it sent. A failure leaves the rest in the outbox for the next flush; a
/// crash between the write and the mark rewrites the same file with the same bytes.
struct Exporter {
    let store: PersistentStore
    let location: ContainerLocation
    let logger: UbiquityLogger

    /// Returns how many logs were written; throws `SyncError.containerUnwritable` when the
    /// container refuses a write (the remaining logs stay in the outbox).
    func flush() throws -> Int {
        let pending = try store.pendingOutbox()
        guard !pending.isEmpty else { return 0 }
        let directory = location.logDirectory(of: store.peerID)
        var written = 0
        do {
            try AtomicFile.makeDirectory(directory)
            for entry in pending {
                try AtomicFile.write(entry.bytes, to: directory + "/" + entry.fileName)
                try store.markSent(entry.number)
                written += 1
                logger.log(.verbose, "PFUbiquityTransactionLogExporter", "exportLog:", "wrote transaction \(entry.number) as \(entry.fileName) (\(entry.bytes.count) bytes)")
            }
        } catch let error as FileError {
            logger.log(.warning, "PFUbiquityTransactionLogExporter", "exportLog:", "\(error); \(pending.count - written) log(s) wait in the outbox")
            throw SyncError.containerUnwritable(path: error.path, reason: error.message)
        }
        return written
    }

    /// The knowledge of the baseline this peer sees as current, as its receipt records it.
    func currentBaselineKnowledge() -> KnowledgeVector {
        Baseliner(store: store, location: location, scratchDirectory: "", logger: .silent).currentMetadata()?.knowledge ?? KnowledgeVector()
    }

    /// Whether this peer's receipt is missing or records another baseline than the current one.
    func receiptIsStale() -> Bool {
        guard let bytes = try? AtomicFile.read(location.receiptPath(of: store.peerID), limit: 1 << 20),
              let receipt = try? Receipt(decoding: bytes) else { return true }
        return receipt.baselineKnowledge != currentBaselineKnowledge()
    }

    /// Rewrites this peer's receipt with its current knowledge and the current baseline's.
    func writeReceipt() throws {
        let receipt = Receipt(peerID: store.peerID, knowledge: store.knowledge, date: Date().timeIntervalSince1970, modelVersionHash: location.modelHash,
                              baselineKnowledge: currentBaselineKnowledge())
        let directory = location.logDirectory(of: store.peerID)
        do {
            try AtomicFile.makeDirectory(directory)
            try AtomicFile.write(PlistSeam.encode(receipt.plistValue, format: .binary), to: location.receiptPath(of: store.peerID))
        } catch {
            throw SyncError.containerUnwritable(path: error.path, reason: error.message)
        }
    }
}
