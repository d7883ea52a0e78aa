import Crypto
import Foundation
import UbiquityBase
#if canImport(Glibc)
import Glibc
#endif

/// A baseline's `store.sqlite`, inflated whole in memory (`WholeBufferInflater`: one call, no
/// streaming through a small buffer) and checked against the metadata's SHA-256.
///
/// Only the usual archive takes this way: a deflated (or stored) entry, not encrypted, whose
/// declared size is within `maximumBytes`, and that inflates to exactly that size. Anything
/// else returns `nil` and the caller streams the entry through ZIPFoundation as before, which
/// gives a damaged archive the same error it always had.
final class InflatedStore: @unchecked Sendable {
    // @unchecked: a raw buffer, written only before `inflate` returns and read only after.
    /// The inflated bytes; owned, freed with the object, never written after `inflate` returns.
    let bytes: UnsafeMutableRawBufferPointer

    private init(bytes: UnsafeMutableRawBufferPointer) { self.bytes = bytes }
    deinit { bytes.deallocate() }

    /// The largest store inflated in memory: a larger one streams through a small buffer.
    static let maximumBytes = 1 << 30

    /// Inflates the store entry of the plain (unsealed) zip archive open at `descriptor`; `nil`
    /// when the archive is not the usual one (see the type's comment) or the bytes do not
    /// inflate. Throws only when they inflate but do not match `checksum`.
    static func inflate(descriptor: Int32, entryName: String, checksum: String,
                        maximumBytes: Int = maximumBytes) throws(BaselineError) -> InflatedStore? {
        guard let entry = ZipDirectoryReader.locate(entryName, descriptor: descriptor),
              entry.flags & 1 == 0, entry.method == 8 || entry.method == 0,
              entry.size <= UInt64(maximumBytes), entry.compressedSize <= UInt64(Int.max),
              entry.method == 8 || entry.compressedSize == entry.size else { return nil }
        let size = Int(entry.size), compressedSize = Int(entry.compressedSize)
        let output = allocate(size)
        let store = InflatedStore(bytes: UnsafeMutableRawBufferPointer(rebasing: output[..<size]))
        // The whole compressed entry is read at once: it is inflated as one buffer.
        let input = allocate(compressedSize)
        defer { input.deallocate() }
        guard readFully(descriptor, into: UnsafeMutableRawBufferPointer(rebasing: input[..<compressedSize]), at: entry.dataOffset) else {
            output.deallocate()
            return nil
        }
        if entry.method == 0 {
            output.copyMemory(from: UnsafeRawBufferPointer(rebasing: input[..<compressedSize]))
        } else {
            guard WholeBufferInflater.inflate(UnsafeRawBufferPointer(rebasing: input[..<compressedSize]), into: store.bytes) else { return nil }
        }
        var hasher = SHA256()
        hasher.update(bufferPointer: UnsafeRawBufferPointer(store.bytes))
        guard hasher.finalize().map({ String(format: "%02x", $0) }).joined() == checksum else {
            throw .unreadable("store.sqlite does not match its checksum")
        }
        return store
    }

    /// The size of a huge page, and the least buffer worth asking them for.
    private static let hugePage = 1 << 21

    /// A buffer of at least `count` bytes. One of megabytes is asked to be backed by huge pages
    /// where the kernel leaves that to the program (transparent huge pages in `madvise` mode):
    /// a million-object store is 110 MB, and touching it 4 KiB page by page took a quarter of a
    /// second of faults on a virtual machine, longer than its inflation.
    private static func allocate(_ count: Int) -> UnsafeMutableRawBufferPointer {
        guard count >= hugePage else { return .allocate(byteCount: max(count, 1), alignment: 16) }
        // Whole huge pages, so the advice covers nothing but this buffer.
        let rounded = (count + hugePage - 1) & ~(hugePage - 1)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: rounded, alignment: hugePage)
        _ = madvise(buffer.baseAddress, rounded, MADV_HUGEPAGE) // advice: failing changes nothing
        return buffer
    }

    /// Writes the bytes to a new file at `path` (mode 0600).
    func write(to path: String) throws(BaselineError) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw .unreadable("cannot write \(path)") }
        defer { close(descriptor) }
        var done = 0
        while done < bytes.count {
            let count = Glibc.write(descriptor, bytes.baseAddress! + done, bytes.count - done)
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { throw .unreadable("cannot write \(path): \(String(cString: strerror(errno)))") }
            done += count
        }
    }

    private static func readFully(_ descriptor: Int32, into buffer: UnsafeMutableRawBufferPointer, at offset: UInt64) -> Bool {
        var done = 0
        while done < buffer.count {
            let count = pread(descriptor, buffer.baseAddress! + done, buffer.count - done, off_t(offset) + off_t(done))
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return false }
            done += count
        }
        return true
    }
}
