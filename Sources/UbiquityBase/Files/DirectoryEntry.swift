import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// One entry of a directory listing, with the metadata sync needs (readdir + lstat: asking
/// Foundation for attributes of many files is 100× slower on Linux).
public struct DirectoryEntry: Sendable, Equatable {
    public let name: String
    public let isDirectory: Bool
    public let isRegularFile: Bool
    /// A symbolic link (never followed in the cloud: it could lead out of it).
    public let isSymbolicLink: Bool
    public let size: Int64
    /// Seconds since 1970.
    public let modificationTime: Double
    /// The inode: an atomic rewrite (temporary file + rename) changes it even when size and
    /// time look the same, so a file-sync daemon can tell a file was replaced.
    public let inode: UInt64
    /// When the file's inode last changed (seconds since 1970): set by the kernel on every write,
    /// rename or change of metadata, and never settable by a program, so unlike the modification
    /// time (which file-sync tools copy and which simulated clocks set) it tells any change.
    public let changeTime: Double

    /// Size, modification time, inode and change time together: equal signatures mean the same,
    /// unchanged file (any write, rename or replacement changes one of them).
    public var signature: String { "\(size):\(modificationTime):\(inode):\(changeTime)" }

    /// What the entry is when it is not a regular file ("a FIFO", "a folder", "a symbolic link"…).
    public var kindIfNotRegular: String? { FileKind.notRegular(mode) }
    private let mode: mode_t

    /// The entries of `path` (without `.` and `..`), sorted by name; empty if it does not exist.
    /// Each is asked of the open folder (`fstatat`), not by whole path: `lstat` walked every
    /// component of the path again for each file.
    public static func list(_ path: String) -> [DirectoryEntry] {
        let folder = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard folder >= 0 else { return names(path).compactMap { DirectoryEntry(name: $0, path: path + "/" + $0) } }
        defer { close(folder) }
        return names(path).compactMap { name in
            var info = stat()
            guard fstatat(folder, name, &info, AT_SYMLINK_NOFOLLOW) == 0 else { return nil }
            return DirectoryEntry(name: name, info: info)
        }
    }

    /// The names in `path` (without `.` and `..`), sorted, without asking for any file's
    /// metadata: cheap when most names can be judged by themselves (logs already imported).
    /// With `regularFilesOnly`, only regular files (the type `readdir` tells, asked of `lstat`
    /// only on file systems that do not tell it).
    public static func names(_ path: String, regularFilesOnly: Bool = false) -> [String] {
        typedNames(path).compactMap { !regularFilesOnly || $0.type == .regular ? $0.name : nil }
    }

    /// What a listing tells of an entry without `lstat`: the type `readdir` reports.
    public enum ListedType: Sendable, Equatable {
        case regular, directory, symbolicLink
        /// A FIFO, socket or device node.
        case other
    }

    /// The names in `path` (without `.` and `..`), sorted, each with the type `readdir` tells
    /// (asked of `lstat` only on file systems that do not tell it); empty if it does not exist.
    public static func typedNames(_ path: String) -> [(name: String, type: ListedType)] {
        guard let directory = opendir(path) else { return [] }
        defer { closedir(directory) }
        // Every name's bytes go into one buffer (no array per name): a sync lists many folders.
        var bytes: [UInt8] = [], listed: [(start: Int, count: Int, type: ListedType)] = []
        var ascii = true
        while let entry = readdir(directory) {
            let start = bytes.count
            withUnsafeBytes(of: entry.pointee.d_name) { raw in
                // One append a name, checked by a pointer loop (a debug build iterates a buffer in generic code).
                let name = raw.baseAddress!.assumingMemoryBound(to: CChar.self) // `d_name` is a tuple of `CChar`
                let length = strnlen(name, raw.count)
                var offset = 0
                while offset < length {
                    if name[offset] < 0 { ascii = false } // a byte of 0x80 or above
                    offset += 1
                }
                bytes.append(contentsOf: UnsafeRawBufferPointer(start: raw.baseAddress, count: length))
            }
            let count = bytes.count - start, dot = UInt8(ascii: ".")
            if count == 0 || (bytes[start] == dot && (count == 1 || (count == 2 && bytes[start + 1] == dot))) {
                bytes.removeLast(count)
                continue
            }
            let type: ListedType
            switch Int32(entry.pointee.d_type) {
            case Int32(DT_REG): type = .regular
            case Int32(DT_DIR): type = .directory
            case Int32(DT_LNK): type = .symbolicLink
            case Int32(DT_UNKNOWN):
                guard let file = DirectoryEntry.at(path + "/" + String(decoding: bytes[start...], as: UTF8.self)) else {
                    bytes.removeLast(count)
                    continue
                }
                type = file.isRegularFile ? .regular : file.isDirectory ? .directory : file.isSymbolicLink ? .symbolicLink : .other
            default: type = .other
            }
            listed.append((start, count, type))
        }
        return bytes.withUnsafeBufferPointer { buffer in
            let name = { (start: Int, count: Int) in String(decoding: UnsafeBufferPointer(rebasing: buffer[start..<start + count]), as: UTF8.self) }
            // Sorted as `String` sorts: for ASCII names that is byte order, compared without
            // building the strings first (a big folder's sort was a profile's hot spot); any other
            // name takes `String`'s Unicode order.
            guard ascii else { return listed.map { (name($0.start, $0.count), $0.type) }.sorted { $0.name < $1.name } }
            listed.sort { a, b in
                let order = memcmp(buffer.baseAddress! + a.start, buffer.baseAddress! + b.start, min(a.count, b.count))
                return order != 0 ? order < 0 : a.count < b.count
            }
            return listed.map { (name($0.start, $0.count), $0.type) }
        }
    }

    /// Whether `path` and every folder between `root` and it are real folders: each is checked
    /// with `lstat`, so a symbolic link anywhere below `root` makes the answer `false` (`root`
    /// itself may be a link: the user chose it). `path` must lie below `root`.
    public static func isRealFolder(_ path: String, below root: String) -> Bool {
        guard path.hasPrefix(root + "/") else { return path == root }
        var current = root
        for component in path.dropFirst(root.count + 1).split(separator: "/") {
            guard component != "..", component != "." else { return false }
            current += "/" + component
            var info = stat()
            guard lstat(current, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR else { return false }
        }
        return true
    }

    /// The entry at `path` (not following a symbolic link), or `nil` when there is none.
    public static func at(_ path: String) -> DirectoryEntry? {
        DirectoryEntry(name: name(of: path), path: path)
    }

    /// What follows the last `/` of `path` (all of it without one). Found by bytes, from the
    /// end back, when the name and the byte before the slash are ASCII: then the slash is a
    /// character of its own (no mark after it, no prepended character before it) and bytes and
    /// characters split alike; by characters otherwise. Every `lstat` by path names its entry
    /// here: the forward scan of the whole path was most of `DirectoryEntry.at`'s instructions.
    static func name(of path: String) -> String {
        var bytes = path
        let name = bytes.withUTF8 { utf8 -> String? in
            // A pointer loop: a debug build runs `lastIndex(of:)` over a buffer in generic code.
            guard let start = utf8.baseAddress else { return "" }
            var offset = utf8.count - 1
            while offset >= 0 {
                let byte = start[offset]
                if byte >= 0x80 { return nil }
                if byte == UInt8(ascii: "/") {
                    if offset > 0 && start[offset - 1] >= 0x80 { return nil }
                    return String(decoding: UnsafeBufferPointer(rebasing: utf8[(offset + 1)...]), as: UTF8.self)
                }
                offset -= 1
            }
            return nil // no slash: the path itself, as below
        }
        return name ?? path.lastIndex(of: "/").map { String(path[path.index(after: $0)...]) } ?? path
    }

    private init?(name: String, path: String) {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        self.init(name: name, info: info)
    }

    /// The entry `info` (from `lstat` or `fstatat`) describes.
    init(name: String, info: stat) {
        let type = info.st_mode & S_IFMT
        self.name = name
        isDirectory = type == S_IFDIR
        isRegularFile = type == S_IFREG
        isSymbolicLink = type == S_IFLNK
        mode = info.st_mode
        size = Int64(info.st_size)
        modificationTime = Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9
        inode = UInt64(info.st_ino)
        changeTime = Double(info.st_ctim.tv_sec) + Double(info.st_ctim.tv_nsec) / 1e9
    }
}
