import Crypto
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Files too large to hold in memory, read and written a chunk at a time (external binary
/// values: a 200 MB value never sits whole in memory). Writes are atomic as `AtomicFile.write`:
/// a temporary `.nosync` file in the same folder, fsync, `rename()`, fsync of the folder.
/// Every byte written is hashed on the way, so a copy knows its SHA-256 without a second pass.
public enum StreamingFile {
    /// The chunk size of every read and write.
    public static let chunkSize = 1 << 20

    /// What a streamed write produced.
    public struct Written: Sendable, Equatable {
        /// Lower-case hex SHA-256 of the bytes written.
        public let sha256: String
        public let size: Int64
    }

    /// Writes the chunks `produce` hands to its argument into a new file at `path`, atomically.
    /// `produce` throws to abandon the write (the temporary file is removed, `path` untouched).
    /// With `accept`, the hash and size are shown before the rename: returning `false`
    /// abandons the write too (a copy whose bytes do not match their name never lands).
    @discardableResult
    public static func write(to path: String, modificationTime: Double? = nil, mode: mode_t = 0o644,
                             accept: ((Written) throws -> Bool)? = nil,
                             produce: (_ write: ([UInt8]) throws -> Void) throws -> Void) throws -> Written {
        let (directory, temporary) = AtomicFile.temporaryPath(for: path)
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
        guard descriptor >= 0 else { throw FileError(path: temporary, operation: "create", errno: errno) }
        var hasher = SHA256()
        var size: Int64 = 0
        var isOpen = true
        do {
            try produce { bytes in
                hasher.update(data: bytes)
                size += Int64(bytes.count)
                try writeAll(bytes, to: descriptor, path: temporary)
            }
            if let modificationTime { AtomicFile.setModificationTime(modificationTime, of: descriptor) }
            guard fsync(descriptor) == 0 else { throw FileError(path: temporary, operation: "fsync", errno: errno) }
            let written = Written(sha256: hasher.finalize().map { String(format: "%02x", $0) }.joined(), size: size)
            if let accept, try !accept(written) { throw Abandoned() }
            close(descriptor)
            isOpen = false
            // publish removes the temporary file itself when the rename fails.
            try AtomicFile.publish(temporary, as: path, in: directory)
            return written
        } catch {
            // Closed once only: a second close could close a descriptor another thread just opened.
            if isOpen {
                close(descriptor)
                unlink(temporary)
            }
            throw error
        }
    }

    /// Thrown by `write` when `accept` refused what was written.
    public struct Abandoned: Error, Sendable {}

    /// Calls `body` with each chunk of the regular file at `path` (see
    /// `AtomicFile.openRegularFile`), in order.
    public static func forEachChunk(of path: String, followingLinks: Bool = false, _ body: ([UInt8]) throws -> Void) throws {
        let descriptor = try AtomicFile.openRegularFile(path, followingLinks: followingLinks)
        defer { close(descriptor) }
        try forEachChunk(descriptor: descriptor, path: path, body)
    }

    /// Calls `body` with each chunk read from `descriptor` until its end.
    public static func forEachChunk(descriptor: Int32, path: String, _ body: ([UInt8]) throws -> Void) throws {
        var buffer = [UInt8](repeating: 0, count: chunkSize)
        while true {
            let count = buffer.withUnsafeMutableBytes { raw in Glibc.read(descriptor, raw.baseAddress!, raw.count) }
            if count < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                throw FileError(path: path, operation: "read", errno: errno)
            }
            if count == 0 { return }
            try body(count == buffer.count ? buffer : Array(buffer[..<count]))
        }
    }

    /// Lower-case hex SHA-256 and size of the file at `path`, read a chunk at a time.
    public static func sha256(of path: String) throws -> Written {
        var hasher = SHA256()
        var size: Int64 = 0
        try forEachChunk(of: path) { chunk in
            hasher.update(data: chunk)
            size += Int64(chunk.count)
        }
        return Written(sha256: hasher.finalize().map { String(format: "%02x", $0) }.joined(), size: size)
    }

    private static func writeAll(_ bytes: [UInt8], to descriptor: Int32, path: String) throws {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { raw in Glibc.write(descriptor, raw.baseAddress! + offset, raw.count - offset) }
            if written < 0 {
                if errno == EINTR { continue }
                throw FileError(path: path, operation: "write", errno: errno)
            }
            offset += written
        }
    }
}
