import Foundation
import Synchronization
import UbiquityBase
import UbiquityCore

/// Receipts already decoded, by path and settled file signature (size, modification time, inode,
/// change time: any later write, rename or replacement changes it, `settledSignature`), and by
/// their bytes. Every collection reads every peer's receipt, and most have not changed since
/// the last one: a file unchanged and settled is not read again, one just rewritten with the
/// same bytes is read but not decoded again. Only receipts read as plain bytes are kept
/// (a sealed one decodes only with the key this device holds at the time), and a failed read is
/// never kept, so a lookup gives exactly what reading the same file again would.
///
/// A receipt read from a listing whose folder is watched (`OpenFolder.memo`) is kept with that
/// watch's memo too: while the memo is current, nothing in the folder changed since before
/// the read, so the receipt is answered with no look at the file at all, settled or not (peers
/// rewrite their receipts at most syncs, so most are not settled when the next sync asks).
package final class ReceiptCache: Sendable {
    private let entries = Mutex<[String: (signature: String?, bytes: [UInt8], receipt: Receipt, watched: FolderMetadataMemo?)]>([:])

    package init() {}

    /// The receipt a listing of this round found (`entry`, of kind `.receipt`), asked of the
    /// folder the listing opened (its confinement checked by the listing, `ContainerEntry.list`):
    /// by name, not by a path a dozen folders deep, and with no second walk of those folders.
    package func receipt(listed entry: ContainerEntry, of location: ContainerLocation, limit: Int) -> Receipt? {
        guard let folder = entry.folder else { return receipt(at: entry.path, of: location, limit: limit) }
        if let memo = folder.memo, let known = entries.withLock({ $0[entry.path] }), known.watched === memo, memo.isCurrent() { return known.receipt }
        guard let file = folder.entry(entry.name), file.isRegularFile else { return nil }
        return receipt(entry.path, file: file, of: location, limit: limit, read: { (limit: Int) throws(FileError) in try folder.read(entry.name, limit: limit) },
                       look: { folder.entry(entry.name) }, watched: folder.memo)
    }

    /// The receipt at `path` below `location`'s root: the one decoded before when the file is
    /// unchanged, else read and decoded now (`nil` when it is missing, unreadable or not a receipt).
    package func receipt(at path: String, of location: ContainerLocation, limit: Int) -> Receipt? {
        let directory = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
        // The folders are checked every time, as a read checks them.
        guard location.isConfined(directory), let file = DirectoryEntry.at(path), file.isRegularFile else { return nil }
        return receipt(path, file: file, of: location, limit: limit, read: { (limit: Int) throws(FileError) in try AtomicFile.read(path, limit: limit) },
                       look: { DirectoryEntry.at(path) })
    }

    /// The receipt in the regular file `file` (at `path`, read by `read`, looked at again by
    /// `look`; `watched`: the memo of the watch on its folder, made before the read).
    private func receipt(_ path: String, file: DirectoryEntry, of location: ContainerLocation, limit: Int,
                         read: (Int) throws(FileError) -> [UInt8], look: () -> DirectoryEntry?, watched: FolderMetadataMemo? = nil) -> Receipt? {
        let signature = file.settledSignature
        let known = entries.withLock { $0[path] }
        let bytes: [UInt8], receipt: Receipt
        if let signature, let known, known.signature == signature {
            // Unchanged since it was read; kept with the watch's memo too, when there is one.
            if watched == nil || known.watched === watched { return known.receipt }
            (bytes, receipt) = (known.bytes, known.receipt)
        } else {
            guard let read = try? read(SealedFile.sealedSize(ofAtMost: limit)) else { return nil }
            if SealedFile.isSealed(read) {
                return (try? location.sealing.open(read, path: path)).flatMap { try? Receipt(decoding: $0) }
            }
            // A receipt rewritten with the same bytes (a peer syncs again with nothing new) is
            // not decoded again, settled or not: the bytes just read are what a decode would see.
            if let known, known.bytes == read {
                receipt = known.receipt
            } else {
                guard let opened = try? location.sealing.open(read, path: path), let decoded = try? Receipt(decoding: opened) else { return nil }
                receipt = decoded
            }
            bytes = read
        }
        // The settled signature taken before the read names the bytes read when it holds after it.
        let named = signature.flatMap { look()?.signature == $0 ? $0 : nil }
        // So does a watch's memo made before the read and still current after it.
        let current = watched.flatMap { $0.isCurrent() ? $0 : nil }
        entries.withLock { entries in
            if entries.count > 1024 { entries.removeAll() }
            entries[path] = (named, bytes, receipt, current)
        }
        return receipt
    }
}
