import Foundation
import UbiquityBase
import UbiquityCore

// A log file the scan found, and reading and decoding it on any thread.
extension Importer {
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

        var id: LogID { LogID(peerID, number) }
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
        if let kept = location.caches.decodedLogs.log(at: path, model: model, signature: candidate.settledSignature, watched: candidate.folder?.memo),
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
           let log = location.caches.decodedLogs.log(at: path, model: model, bytes: bytes, signature: candidate.settledSignature, watched: candidate.folder?.memo) {
            return decoded(log)
        }
        do {
            return decoded(try TransactionLog(decoding: bytes, model: model, maxBytes: maxLogBytes))
        } catch {
            return .failed(error, bytes: bytes)
        }
    }
}
