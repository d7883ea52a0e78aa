import Foundation
import UbiquityBase
import UbiquityCore

/// Receipts already decoded, by path and settled file signature (size, modification time, inode,
/// change time: any later write, rename or replacement changes it, `settledSignature`), and by
/// their bytes. Every collection reads every peer's receipt, and most have not changed since
/// the last one: a file unchanged and settled is not read again, one just rewritten with the
/// same bytes is read but not decoded again. Only receipts read as plain bytes are kept
/// (a sealed one decodes only with the key this device holds at the time), and a failed read is
/// never kept, so a lookup gives exactly what reading the same file again would.
package final class ReceiptCache: @unchecked Sendable {
    package static let shared = ReceiptCache()
    private let lock = NSLock()
    private var entries: [String: (signature: String?, bytes: [UInt8], receipt: Receipt)] = [:]

    /// The receipt a listing of this round found (`entry`, of kind `.receipt`), asked of the
    /// folder the listing opened (its confinement checked by the listing, `ContainerEntry.list`):
    /// by name, not by a path a dozen folders deep, and with no second walk of those folders.
    package func receipt(listed entry: ContainerEntry, of location: ContainerLocation, limit: Int) -> Receipt? {
        guard let folder = entry.folder else { return receipt(at: entry.path, of: location, limit: limit) }
        guard let file = folder.entry(entry.name), file.isRegularFile else { return nil }
        return receipt(entry.path, file: file, of: location, limit: limit, read: { (limit: Int) throws(FileError) in try folder.read(entry.name, limit: limit) },
                       look: { folder.entry(entry.name) })
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

    /// The receipt in the regular file `file` (at `path`, read by `read`, looked at again by `look`).
    private func receipt(_ path: String, file: DirectoryEntry, of location: ContainerLocation, limit: Int,
                         read: (Int) throws(FileError) -> [UInt8], look: () -> DirectoryEntry?) -> Receipt? {
        let signature = file.settledSignature
        if let signature, let known = lock.withLock({ entries[path] }), known.signature == signature { return known.receipt }
        guard let bytes = try? read(SealedFile.sealedSize(ofAtMost: limit)) else { return nil }
        let sealed = SealedFile.isSealed(bytes)
        // A receipt rewritten with the same bytes (a peer syncs again with nothing new) is not
        // decoded again, settled or not: the bytes just read are what a decode would see.
        if !sealed, let known = lock.withLock({ entries[path] }), known.bytes == bytes { return known.receipt }
        guard let opened = try? location.sealing.open(bytes, path: path), let receipt = try? Receipt(decoding: opened) else { return nil }
        if !sealed {
            // The settled signature taken before the read names the bytes read when it holds after it.
            let named = signature.flatMap { look()?.signature == $0 ? $0 : nil }
            lock.withLock {
                if entries.count > 1024 { entries.removeAll() }
                entries[path] = (named, bytes, receipt)
            }
        }
        return receipt
    }
}
