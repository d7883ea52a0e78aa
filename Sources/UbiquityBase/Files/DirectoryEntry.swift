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
    public let size: Int64
    /// Seconds since 1970.
    public let modificationTime: Double
    /// The inode: an atomic rewrite (temporary file + rename) changes it even when size and
    /// time look the same, so a file-sync daemon can tell a file was replaced.
    public let inode: UInt64

    /// The entries of `path` (without `.` and `..`), sorted by name; empty if it does not exist.
    public static func list(_ path: String) -> [DirectoryEntry] {
        names(path).compactMap { DirectoryEntry(name: $0, path: path + "/" + $0) }
    }

    /// The names in `path` (without `.` and `..`), sorted, without asking for any file's
    /// metadata: cheap when most names can be judged by themselves (logs already imported).
    public static func names(_ path: String) -> [String] {
        guard let directory = opendir(path) else { return [] }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names.sorted()
    }

    /// The entry at `path` (not following a symbolic link), or `nil` when there is none.
    public static func at(_ path: String) -> DirectoryEntry? {
        DirectoryEntry(name: path.lastIndex(of: "/").map { String(path[path.index(after: $0)...]) } ?? path, path: path)
    }

    private init?(name: String, path: String) {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        let type = info.st_mode & S_IFMT
        self.name = name
        isDirectory = type == S_IFDIR
        isRegularFile = type == S_IFREG
        size = Int64(info.st_size)
        modificationTime = Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9
        inode = UInt64(info.st_ino)
    }
}
