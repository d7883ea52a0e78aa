import Foundation
import UbiquityPlist
import UbiquityBase
import UbiquityCore

/// Writes the outbox into the container: each pending log atomically into the peer's own
/// folder, then marks it sent. A failure leaves the rest in the outbox for the next flush; a
/// crash between the write and the mark rewrites the same file with the same bytes.
package struct Exporter {
    let store: PersistentStore
    let location: ContainerLocation
    let logger: UbiquityLogger
    /// Told of the logs to write and of each one written (`nil`: nobody listens).
    package var activity: ActivityReporter?
    /// The peer's counters, told of each log written (`nil`: nothing is counted).
    let metrics: SyncMetrics?

    package init(store: PersistentStore, location: ContainerLocation, logger: UbiquityLogger, metrics: SyncMetrics? = nil) {
        self.store = store
        self.location = location
        self.logger = logger
        self.metrics = metrics
    }

    /// Returns how many logs were written; throws `SyncError.containerUnwritable` when the
    /// container refuses a write (the remaining logs stay in the outbox).
    package func flush() throws -> Int {
        let pending = try store.pendingOutbox()
        guard !pending.isEmpty else { return 0 }
        // Logs of a model without external storage name no file: they are not searched.
        let mayNameFiles = store.model.entities.contains { $0.attributes.contains(where: \.allowsExternalBinaryDataStorage) }
        var written = 0
        activity?.begin(logs: pending.count, bytes: pending.reduce(0) { $0 + Int64($1.bytes.count) })
        do {
            for entry in pending {
                // The file carries its export time on this peer's clock: garbage collection
                // judges a log's age by it, and file-sync tools keep it.
                let path = location.logPath(of: store.peerID, entry.fileName)
                if mayNameFiles { try uploadExternalData(of: entry.bytes) }
                try location.write(entry.bytes, to: path, modificationTime: store.now)
                let file = DirectoryEntry.at(path)
                try store.markSent(entry.number, file: file)
                written += 1
                activity?.advance(bytes: Int64(entry.bytes.count))
                metrics?.exported(bytes: file?.size ?? Int64(entry.bytes.count))
                logger.log(.verbose, .exporter, "exportLog:", "wrote transaction \(entry.number) as \(entry.fileName) (\(entry.bytes.count) bytes)")
            }
        } catch let error as FileError {
            logger.log(.warning, .exporter, "exportLog:", "\(error); \(pending.count - written) log(s) wait in the outbox")
            throw SyncError.containerUnwritable(path: error.path, reason: error.message)
        } catch let error as ExternalDataError {
            logger.error(.exporter, "exportLog:", "\(error); \(pending.count - written) log(s) wait in the outbox")
            throw SyncError.containerUnwritable(path: location.externalDataDirectory, reason: error.description)
        }
        return written
    }

    /// Writes the external values a log names into the cloud (fsynced) before the log itself,
    /// so no peer ever sees a log whose file was never written.
    package func uploadExternalData(of bytes: [UInt8]) throws {
        // Only a log holding the key's text can name external data: most logs are not decoded again.
        guard bytes.count > 12, Self.containsMarker(bytes) else { return }
        for reference in try ExternalDataReference.all(inLog: bytes).sorted(by: { $0.sha256 < $1.sha256 }) {
            try location.uploadExternalData(reference, from: store.externalData, now: store.now)
            logger.log(.verbose, .exporter, "exportLog:", "external data \(reference.sha256) (\(reference.size) bytes) is in the container")
        }
    }

    private static let marker = Array("externalData".utf8)

    private static func containsMarker(_ bytes: [UInt8]) -> Bool {
        let first = marker[0]
        var index = 0
        while index + marker.count <= bytes.count {
            if bytes[index] == first, bytes[index..<index + marker.count].elementsEqual(marker) { return true }
            index += 1
        }
        return false
    }

    /// Writes again each external value this peer's live objects hold (and has the bytes of)
    /// whose file in the cloud is gone or of the wrong size: cut short by a transfer, or
    /// deleted. Any peer holding the bytes may: the name says what they must be. Returns the
    /// hashes written.
    package func repairExternalData() throws -> [String] {
        var repaired: [String] = []
        let sealed = (try? location.sealingKey(forWriting: location.externalDataDirectory)) ?? nil
        if case .locked = location.sealing.state { return [] }
        for reference in try store.externalReferences().sorted(by: { $0.sha256 < $1.sha256 }) where store.externalData.contains(reference) {
            let path = location.externalDataDirectory + "/" + location.externalDataName(reference)
            if let entry = DirectoryEntry.at(path), entry.isRegularFile,
               Int64(entry.size) == ContainerLocation.fileSize(of: reference, sealed: sealed != nil) { continue }
            do {
                try location.uploadExternalData(reference, from: store.externalData, now: store.now)
            } catch let error as FileError {
                throw SyncError.containerUnwritable(path: error.path, reason: error.message)
            }
            logger.error(.exporter, "repairExternalData:", "external data \(reference.sha256) was gone from the container or cut short: written again")
            repaired.append(reference.sha256)
        }
        return repaired
    }

    /// Moves aside a symbolic link standing in place of this peer's own folders (a level-0
    /// notice says where it went), so that the next write makes the folder again and
    /// `repairSentLogs` writes its logs again from the copies kept; returns what moved.
    package func reclaimOwnFolder() -> [ContainerLocation.MovedAside] {
        let moved = location.moveAsideLinks(ofPeer: store.peerID, now: store.now)
        for entry in moved {
            logger.notice(.exporter, "reclaimFolder:", "this peer's folder \(entry.path) was a symbolic link, never followed: moved it aside as \((entry.movedTo as NSString).lastPathComponent); its logs are written again from the copies this device keeps")
        }
        return moved
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
        // The folder's names from its kept listing (`LogFolderListings`, listed again only when
        // it changed), each sent log's metadata asked of the folder the listing opened: every
        // sync comes here, and a peer's folder holds all its logs not yet collected.
        let listed = Dictionary(ContainerEntry.list(directory, as: .logs, of: location).map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        let sentLogs = try store.sentLogs(), present = sentLogs.compactMap { listed[$0.file] }
        let files = Dictionary(zip(present.map(\.name), ContainerEntry.files(present)), uniquingKeysWith: { first, _ in first })
        var repaired: [Int64] = []
        for sent in sentLogs {
            let file = files[sent.file] ?? nil
            if let file, file.size == sent.size && file.modificationTime == sent.modificationTime && file.inode == sent.inode { continue }
            guard let kept = try store.sentBytes(sent.number) else { continue }
            let path = location.logPath(of: store.peerID, sent.file)
            if let file, (try? location.read(path, limit: kept.count + 1)) == kept {
                try store.updateSent(sent.number, file: file)   // the same bytes, delivered again
                continue
            }
            try writeAgain(kept, to: path)
            if let rewritten = DirectoryEntry.at(path) { try store.updateSent(sent.number, file: rewritten) }
            logger.error(.exporter, "repairLog:", "transaction \(sent.number) \(file == nil ? "was gone from" : "no longer held what this peer sent in") the container: written again from its copy")
            repaired.append(sent.number)
        }
        return repaired
    }

    /// Whether this peer's receipt is missing, or records another content epoch or another
    /// view of the baselines (`baselineView`: what the baselines it sees hold together).
    /// A plaintext receipt of content encrypted since is stale too: it is written again sealed.
    /// `scan`: this round's listing, whose entry for the receipt is read in the folder it
    /// opened, and through `ReceiptCache` (every sync asks, and the receipt seldom changed).
    package func receiptIsStale(baselineView: KnowledgeVector, scan: ContainerScan? = nil) -> Bool {
        let path = location.receiptPath(of: store.peerID)
        let listed = scan?.peerFolders.first { $0.peerID == store.peerID }?.entries.first { $0.kind == .receipt && $0.path == path }
        let found: Receipt?
        if let listed {
            found = location.caches.receipts.receipt(listed: listed, of: location, limit: 1 << 20)
        } else {
            found = (try? location.read(path, limit: 1 << 20)).flatMap { try? Receipt(decoding: $0) }
        }
        guard let receipt = found else { return true }
        if case .sealed = location.sealing.state, let raw = try? AtomicFile.read(path, limit: 1 << 21), !SealedFile.isSealed(raw) { return true }
        return receipt.contentEpoch != (try? store.contentEpoch()) ?? nil || receipt.baselineKnowledge != baselineView
            || receipt.knowledge != store.knowledge
    }

    /// Writes a log again from this peer's copy, stamped with its export time as `flush` does.
    private func writeAgain(_ bytes: [UInt8], to path: String) throws {
        do {
            try location.write(bytes, to: path, modificationTime: store.now)
        } catch {
            throw SyncError.containerUnwritable(path: error.path, reason: error.message)
        }
    }

    /// Rewrites this peer's receipt with its current knowledge, its content epoch and what the
    /// baselines it sees hold together (`baselineView`). Both only ever grow, so other peers'
    /// garbage collection may trust what the receipt says (Docs/Lifecycle.md, "The rule").
    package func writeReceipt(baselineView: KnowledgeVector) throws {
        let receipt = Receipt(peerID: store.peerID, knowledge: store.knowledge, date: store.now, modelVersionHash: location.modelHash,
                              contentEpoch: try store.contentEpoch(), baselineKnowledge: baselineView)
        do {
            try location.write(PlistSeam.encode(receipt.plistValue, format: .binary), to: location.receiptPath(of: store.peerID))
        } catch {
            throw SyncError.containerUnwritable(path: error.path, reason: error.message)
        }
    }
}
