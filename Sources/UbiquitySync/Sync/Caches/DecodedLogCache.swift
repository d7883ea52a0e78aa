import Foundation
import Synchronization
import UbiquityBase
import UbiquityCore

/// Logs an import decoded but could not apply yet (a predecessor of their author is missing, or
/// a transaction their author had seen), by path, model and file. Such a log is read and
/// decoded again by every sync until it applies: in a churn of dropped transfers that was most
/// of the logs an import read. A log is taken from here only when decoding its file again could
/// give nothing else:
/// - its file's settled signature (size, modification time, inode, change time, the change
///   over `DirectoryEntry.settlingTime` in the past: any later write changes it) is the one it
///   was decoded under, and so are the model and the content's sealing (plain: a sealed file
///   opens only with the key this device holds at the time, so none is kept);
/// - or its folder's watch has told no change since before the file was read (the listing's
///   `FolderMetadataMemo`, the one it was kept with, is still current): a log that arrived
///   a moment ago, not settled yet, is not read again at every sync either;
/// - or, for a file changed lately, its bytes, read again, are the ones it was decoded from.
/// Logs leave when they apply; everything goes past `capacity` (the cache only saves work).
package final class DecodedLogCache: Sendable {
    package init() {}

    /// Logs larger than this are never kept: a waiting log of a chatty peer is small, a large
    /// one (an import of thousands of objects) waits rarely and would hold its memory long.
    package static let largestLog = 256 << 10
    /// Bytes of logs kept at most before all are dropped.
    static let capacity = 32 << 20

    private struct Kept {
        let model: String
        let signature: String?
        let bytes: [UInt8]
        let log: TransactionLog
        /// The memo of the watch on the file's folder, made before the read and current after it.
        var watched: FolderMetadataMemo?
    }

    private struct State {
        var entries: [String: Kept] = [:]
        var keptBytes = 0
    }

    private let state = Mutex(State())

    /// The log decoded before from the file at `path`, unchanged since (`signature`: its
    /// settled signature when the import asked for the file), under `model`.
    /// `watched`: the memo of the listing the file was found in; a log kept under that very
    /// memo, while it is current, needs no signature.
    package func log(at path: String, model: ObjectModel, signature: String?, watched: FolderMetadataMemo? = nil) -> (log: TransactionLog, bytes: [UInt8])? {
        guard let kept = state.withLock({ $0.entries[path] }), kept.model == Self.identity(of: model) else { return nil }
        if let signature, kept.signature == signature { return (kept.log, kept.bytes) }
        if let watched, kept.watched === watched, watched.isCurrent() { return (kept.log, kept.bytes) }
        return nil
    }

    /// The log decoded before from exactly `bytes` (read now from `path`) under `model`. A file
    /// whose settled signature was `signature` before it was read is from then on known by it:
    /// a log that arrived just before it was first decoded is not read a third time.
    /// So is one whose folder's memo `watched` is current after the read.
    package func log(at path: String, model: ObjectModel, bytes: [UInt8], signature: String?, watched: FolderMetadataMemo? = nil) -> TransactionLog? {
        let current = watched.flatMap { $0.isCurrent() ? $0 : nil }
        return state.withLock { state in
            guard let kept = state.entries[path], kept.model == Self.identity(of: model), kept.bytes == bytes else { return nil }
            if (signature != nil && kept.signature != signature) || (current != nil && kept.watched !== current) {
                state.entries[path] = Kept(model: kept.model, signature: signature ?? kept.signature, bytes: kept.bytes, log: kept.log, watched: current ?? kept.watched)
            }
            return kept.log
        }
    }

    /// Keeps `log`, decoded under `model` from `bytes`, the plain contents of the file at
    /// `path` whose settled signature was `signature` when it was read (`nil`: changed lately).
    /// `watched`: the memo of the watch on the file's folder, made before the read (kept only if still current).
    package func keep(_ log: TransactionLog, from bytes: [UInt8], at path: String, signature: String?, model: ObjectModel,
                      watched: FolderMetadataMemo? = nil) {
        guard bytes.count <= Self.largestLog else { return }
        let current = watched.flatMap { $0.isCurrent() ? $0 : nil }
        state.withLock { state in
            if let old = state.entries[path] { state.keptBytes -= old.bytes.count }
            if state.keptBytes + bytes.count > Self.capacity {
                state.entries.removeAll()
                state.keptBytes = 0
            }
            state.entries[path] = Kept(model: Self.identity(of: model), signature: signature, bytes: bytes, log: log, watched: current)
            state.keptBytes += bytes.count
        }
    }

    /// Drops the logs of `paths` (they applied: their author's number is at or below the
    /// knowledge now, so they are never read again).
    package func forget(_ paths: some Sequence<String>) {
        state.withLock { state in
            guard !state.entries.isEmpty else { return }
            for path in paths {
                if let old = state.entries.removeValue(forKey: path) { state.keptBytes -= old.bytes.count }
            }
        }
    }

    /// Whether no log is kept (an import that applied logs asks before building their paths).
    package var isEmpty: Bool { state.withLock { $0.entries.isEmpty } }

    /// Whether a log of `path` is kept (tests).
    package func holds(_ path: String) -> Bool { state.withLock { $0.entries[path] != nil } }

    /// The model as decoding sees it: its name and the hash of everything it declares.
    private static func identity(of model: ObjectModel) -> String { model.name + "\n" + model.hash }
}
