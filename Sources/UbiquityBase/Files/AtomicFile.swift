import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Atomic file writes (Docs/ContainerFormat.md): a temporary `.nosync` file in the same folder, fsync,
/// `rename()` into place, then fsync of the folder. Readers see the old file or the new one,
/// never a part. `FileManager.replaceItemAt` is avoided: it is broken on Linux.
public enum AtomicFile {
    /// Writes `bytes` to `path` atomically; with `modificationTime` (seconds since 1970) the
    /// file carries that time, as a file-sync tool keeps the source's. `mode`: the new file's
    /// permissions (a key kept on a device is 0600 from its first byte).
    public static func write(_ bytes: [UInt8], to path: String, modificationTime: Double? = nil, mode: mode_t = 0o644) throws(FileError) {
        let (directory, temporary) = temporaryPath(for: path)
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
        guard descriptor >= 0 else { throw FileError(path: temporary, operation: "create", errno: errno) }
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { raw in
                Glibc.write(descriptor, raw.baseAddress! + offset, raw.count - offset)
            }
            if written < 0 {
                if errno == EINTR { continue }
                let error = FileError(path: temporary, operation: "write", errno: errno)
                close(descriptor)
                unlink(temporary)
                throw error
            }
            offset += written
        }
        if let modificationTime { setModificationTime(modificationTime, of: descriptor) }
        if fsync(descriptor) != 0 {
            let error = FileError(path: temporary, operation: "fsync", errno: errno)
            close(descriptor)
            unlink(temporary)
            throw error
        }
        close(descriptor)
        try publish(temporary, as: path, in: directory)
    }

    /// Temporary files end so (iCloud's rule: a `.nosync` name never travels), and nothing reads them.
    public static let temporarySuffix = ".nosync"

    /// The folder of `path` and a fresh temporary name beside it, hidden and `.nosync` so no
    /// reader and no file-sync tool takes it for the file. Eight random hex digits (from the
    /// system's generator: Foundation's `UUID()` opens `/dev/urandom` for each one, and every
    /// write comes here); `O_EXCL` refuses the rare name already taken.
    static func temporaryPath(for path: String) -> (directory: String, temporary: String) {
        let directory = PlainPath.folder(of: path)
        let tag = String(UInt32.random(in: .min ... .max) | 0x1000_0000, radix: 16, uppercase: true)
        return (directory, directory + "/." + PlainPath.lastComponent(of: path) + "." + tag + temporarySuffix)
    }

    /// Gives the open file `seconds` since 1970 as its access and modification times.
    static func setModificationTime(_ seconds: Double, of descriptor: Int32) {
        let whole = seconds.rounded(.down)
        let time = timespec(tv_sec: Int(whole), tv_nsec: Int((seconds - whole) * 1e9))
        var times = [time, time]
        _ = futimens(descriptor, &times)
    }

    /// Renames the written and fsynced `temporary` to `path` and fsyncs the folder, so the
    /// rename survives a crash; the temporary file is removed when the rename fails.
    static func publish(_ temporary: String, as path: String, in directory: String) throws(FileError) {
        guard rename(temporary, path) == 0 else {
            let error = FileError(path: path, operation: "rename", errno: errno)
            unlink(temporary)
            throw error
        }
        let directoryDescriptor = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directoryDescriptor >= 0 {
            fsync(directoryDescriptor)
            close(directoryDescriptor)
        }
    }

    /// Reads a whole file, refusing files larger than `limit` bytes and anything but a regular
    /// file (see `openRegularFile`). A file the user named (`followingLinks`) may be reached
    /// through a symbolic link; nothing in the cloud or a device is.
    public static func read(_ path: String, limit: Int, followingLinks: Bool = false) throws(FileError) -> [UInt8] {
        let descriptor = try openRegularFile(path, followingLinks: followingLinks)
        defer { close(descriptor) }
        return try readAll(descriptor, path: path, limit: limit)
    }

    /// The whole content of the open file `descriptor` (named `path` in errors), at most
    /// `limit` bytes; anything but a regular file is refused (checked on the descriptor, in
    /// case the name changed since it was looked at).
    static func readAll(_ descriptor: Int32, path: String, limit: Int) throws(FileError) -> [UInt8] {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw FileError(path: path, operation: "stat", errno: errno) }
        if let kind = FileKind.notRegular(info.st_mode) { throw FileError(path: path, operation: "read", message: "\(kind), not a regular file") }
        guard Int(info.st_size) <= limit else {
            throw FileError(path: path, operation: "read", message: "file of \(info.st_size) bytes exceeds the limit of \(limit)")
        }
        ReadCounter.current?.count(path)
        var bytes = [UInt8](repeating: 0, count: Int(info.st_size))
        var offset = 0
        while offset < bytes.count {
            let count = bytes.withUnsafeMutableBytes { raw in Glibc.read(descriptor, raw.baseAddress! + offset, raw.count - offset) }
            if count < 0 {
                if errno == EINTR { continue }
                throw FileError(path: path, operation: "read", errno: errno)
            }
            if count == 0 { break }
            offset += count
        }
        return offset == bytes.count ? bytes : Array(bytes[..<offset])
    }

    /// Opens a regular file for reading and returns its descriptor (the caller closes it). What
    /// is not a regular file is refused before it is opened, so nothing named like a file can
    /// block or lead elsewhere: a FIFO (whose `open` waits for a writer), a socket, a device
    /// node, a folder, or a symbolic link (never followed: it could lead out of the cloud). The
    /// type is checked again on the open descriptor, in case the name changed in between.
    /// With `followingLinks` a link is followed (to a regular file only).
    public static func openRegularFile(_ path: String, followingLinks: Bool = false) throws(FileError) -> Int32 {
        var info = stat()
        guard (followingLinks ? stat(path, &info) : lstat(path, &info)) == 0 else { throw FileError(path: path, operation: "open", errno: errno) }
        if let kind = FileKind.notRegular(info.st_mode) { throw FileError(path: path, operation: "read", message: "\(kind), not a regular file") }
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY | (followingLinks ? 0 : O_NOFOLLOW))
        guard descriptor >= 0 else {
            let code = errno
            if code == ELOOP { throw FileError(path: path, operation: "read", message: "a symbolic link, not a regular file") }
            throw FileError(path: path, operation: "open", errno: code)
        }
        guard fstat(descriptor, &info) == 0 else {
            let error = FileError(path: path, operation: "stat", errno: errno)
            close(descriptor)
            throw error
        }
        if let kind = FileKind.notRegular(info.st_mode) {
            close(descriptor)
            throw FileError(path: path, operation: "read", message: "\(kind), not a regular file")
        }
        return descriptor
    }

    /// Creates `path` and its missing parents.
    public static func makeDirectory(_ path: String) throws(FileError) {
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        } catch {
            throw FileError(path: path, operation: "create directory", message: (error as NSError).localizedDescription)
        }
    }
}
