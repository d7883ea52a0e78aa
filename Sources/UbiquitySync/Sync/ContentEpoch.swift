import Foundation
import UbiquityBase
import UbiquityCore
import UbiquityPlist

/// The content epoch (`.content/<ContentName>.plist`): a UUID written only when the content is
/// removed, so running peers notice the removal. Content never removed has no epoch file.
///
/// Every log, baseline and receipt names the epoch its author was in (absent: never removed);
/// a peer applies, adopts and trusts only those of its own epoch, so files of removed content
/// that a file-sync tool delivers late (its deletions often travel after the new epoch) never
/// come back. Only the main file counts: when two machines remove the content at once, the
/// file-sync tool keeps one epoch under the name on every machine and the other as a conflict
/// copy (`<ContentName>.sync-conflict-….plist`), which is never read — every peer converges on
/// the main file's epoch, and what was saved in the other one is removed with it.
///
/// Of two removals the later one wins: a tool that keeps the earlier file under the name would
/// leave the later removal's deletions without its epoch, so a peer that knows a later epoch
/// than the file's writes its own again. "Later" is causal first — each removal counts one more
/// than the removal its remover was in, whatever the clocks say — then, between removals made
/// without knowing of each other, by the date each remover wrote, then by epoch. Each removal
/// also keeps its history (the removals it comes after, per remover), so a peer can tell a
/// removal made without knowing of its own (Docs/Lifecycle.md, "Two removals at once").
package enum ContentEpoch {
    package typealias Removal = ContentRemoval

    /// A new removal's epoch, made from its remover, generation and date: unique (a peer
    /// counts its own removals) and the same on every replay of a scenario (`NameBasedUUID`).
    package static func epochID(remover: String, generation: Int64, date: Double) -> String {
        NameBasedUUID.make([.string("epoch"), .string(remover), .integer(generation), .real(date)]).uuidString
    }

    /// What the main epoch file holds.
    package enum Status: Equatable {
        /// No epoch file: the content was never removed (or the file has not arrived yet).
        case none
        case epoch(Removal)
        /// A file that cannot be used (partly delivered, damaged): ignored until it can.
        case unreadable(String)
    }

    package static func directory(_ location: ContainerLocation) -> String {
        location.contentEpochDirectory
    }

    package static func status(_ location: ContainerLocation) -> Status {
        let bytes: [UInt8]
        do { bytes = try location.read(location.contentEpochPath, limit: 1 << 16) } catch {
            return DirectoryEntry.at(location.contentEpochPath) == nil ? .none : .unreadable("cannot be read: \(error.message)")
        }
        return status(ofBytes: bytes)
    }

    /// What an epoch file's (opened) bytes hold.
    package static func status(ofBytes bytes: [UInt8]) -> Status {
        guard let plist = try? PlistSeam.decode(bytes) else { return .unreadable("not a readable property list") }
        guard plist["format"]?.int64Value == 1, let epoch = plist["epoch"]?.stringValue, UUID(uuidString: epoch) != nil else {
            return .unreadable("missing or unknown format, or no epoch UUID")
        }
        return .epoch(Removal(epoch: epoch, generation: plist["generation"]?.int64Value ?? 0, date: plist["date"]?.doubleValue ?? 0,
                              history: history(in: plist["history"])))
    }

    /// A removal's history as its epoch file holds it (peer ID → count); empty when absent or
    /// malformed, which says nothing of what its remover knew.
    private static func history(in value: PlistValue?) -> KnowledgeVector {
        guard case let .dictionary(fields)? = value else { return KnowledgeVector() }
        var entries: [String: Int64] = [:]
        for (peer, count) in fields {
            guard let count = count.int64Value, (1...KnowledgeVector.largestNumber).contains(count) else { return KnowledgeVector() }
            entries[peer] = count
        }
        return KnowledgeVector(entries)
    }

    /// The current removal; `nil` when there is none or the file cannot be read (never a removal).
    package static func current(_ location: ContainerLocation) -> Removal? {
        if case let .epoch(removal) = status(location) { return removal }
        return nil
    }

    /// The current epoch; `nil` when there is none or the file cannot be read (never a removal).
    package static func read(_ location: ContainerLocation) -> String? { current(location)?.epoch }

    /// Names in `.content/` that a file-sync tool made as conflict copies of this content's epoch.
    package static func conflictCopies(_ location: ContainerLocation) -> [String] {
        ContainerScan.sharedFolder(.contentEpochs, of: location).filter { entry in
            guard entry.isRegularFile, case let .conflictCopy(original, _) = entry.kind else { return false }
            return original == location.contentEpochName
        }.map(\.name)
    }

    /// Writes `removal` (a new epoch of generation `generation`, dated `date`, unless one is
    /// given to write again) and returns it. Conflict copies of earlier epochs go: they were
    /// never read, and this removal supersedes them.
    @discardableResult
    package static func write(_ location: ContainerLocation, _ removal: Removal) throws -> Removal {
        var fields: [String: PlistValue] = ["format": .integer(1), "epoch": .string(removal.epoch), "generation": .integer(removal.generation),
                                            "date": .real(removal.date)]
        if !removal.history.entries.isEmpty { fields["history"] = .dictionary(removal.history.entries.mapValues(PlistValue.integer)) }
        let value = PlistValue.dictionary(fields)
        do {
            try location.write(PlistSeam.encode(value, format: .xml), to: location.contentEpochPath)
        } catch {
            throw SyncError.containerUnwritable(path: error.path, reason: error.message)
        }
        for copy in conflictCopies(location) { unlink(directory(location) + "/" + copy) }
        return removal
    }

    /// Whether the log or baseline file at `path` is readable and belongs to a content whose
    /// epoch is not in `known` (`nil`: content never removed): one made by a removal the caller
    /// has not heard of, which may come after the removal it is making. Any other file, or one
    /// that cannot be read, says nothing.
    package static func fileBelongsToUnknownEpoch(_ path: String, known: Set<String?>, in location: ContainerLocation) -> Bool {
        let name = (path as NSString).lastPathComponent
        let epoch: String?
        if TransactionLog.transactionNumber(inFileName: name) != nil || DuplicateCopy.original(of: name).map({ $0 != ContainerLocation.receiptName }) == true {
            guard let bytes = try? location.read(path, limit: TransactionLog.maximumFileSize), let plist = try? PlistSeam.decode(bytes),
                  plist["transactionNumber"] != nil else { return false }
            epoch = plist["contentEpoch"]?.stringValue
        } else if isBaselineFile(name) {
            guard let metadata = try? BaselineArchive.readMetadata(path, sealing: location.sealing, caches: location.caches) else { return false }
            epoch = metadata.contentEpoch
        } else {
            return false
        }
        return !known.contains(epoch)
    }

    /// `baseline.zip` or a file-sync engine's conflict copy of it.
    private static func isBaselineFile(_ name: String) -> Bool {
        if case .conflictCopy(of: ContainerLocation.baselineName, engine: _)? = SyncArtifact.classify(name) { return true }
        return name == ContainerLocation.baselineName
    }

    /// Whether the log file at `path` is readable and names another content epoch than
    /// `epoch`: a leftover of removed content (or of a removal this store has not seen yet).
    /// A file that cannot be read says nothing.
    package static func logBelongsToOtherEpoch(_ path: String, than epoch: String?, in location: ContainerLocation) -> Bool {
        logEpoch(atPath: path, in: location).map { $0 != epoch } ?? false
    }

    /// The content epoch the log file at `path` names (`.some(nil)`: none, content never
    /// removed); `nil` when it cannot be read as a log.
    package static func logEpoch(atPath path: String, in location: ContainerLocation) -> String?? {
        guard let bytes = try? location.read(path, limit: TransactionLog.maximumFileSize) else { return nil }
        return logEpoch(in: bytes)
    }

    /// `logBelongsToOtherEpoch(log.path, …)` for a log of this round's listing, read by name in
    /// its open folder, and not read again while its file is unchanged and settled: a peer that
    /// waits on a log asks at every sync whether its first unimported log is of this content.
    package static func logBelongsToOtherEpoch(_ log: ContainerScan.LogFile, than epoch: String?, in location: ContainerLocation) -> Bool {
        let path = log.path
        guard let file = log.file else { return false }
        let signature = file.settledSignature
        if let signature, let known = location.caches.logEpochs.lookup(path, signature: signature) { return known.map { $0 != epoch } ?? false }
        guard let raw = try? log.folder.read(log.name, limit: SealedFile.sealedSize(ofAtMost: TransactionLog.maximumFileSize)),
              let bytes = try? location.sealing.open(raw, path: path) else { return false }
        let found = logEpoch(in: bytes)
        // Kept only under a signature that still holds after the read (it then names the bytes read), and only plaintext.
        if let signature, !SealedFile.isSealed(raw), log.file?.signature == signature {
            location.caches.logEpochs.store(path, signature: signature, found)
        }
        return found.map { $0 != epoch } ?? false
    }

    /// The content epoch a log's bytes name (`.some(nil)`: none, content never removed); `nil`
    /// when they are not a log (they say nothing).
    private static func logEpoch(in bytes: [UInt8]) -> String?? {
        guard let plist = try? PlistSeam.decode(bytes), plist["transactionNumber"] != nil else { return nil }
        return .some(plist["contentEpoch"]?.stringValue)
    }
}

extension ContainerLocation {
    /// The removal in the epoch file here: its epoch and its date (seconds since 1970); `nil`
    /// when the content was never removed or the file cannot be read yet. Tools and tests
    /// compare it with the epochs logs and stores name; of two removals the later one wins.
    public var currentContentRemoval: (epoch: String, generation: Int64, date: Double)? {
        ContentEpoch.current(self).map { ($0.epoch, $0.generation, $0.date) }
    }
}
