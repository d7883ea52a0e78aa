import Foundation
import Ubiquity

/// The regular files under one account of a cloud or mirror, by path relative to the root,
/// with what tells a daemon a file changed. `.nosync` names are listed apart: they never travel.
struct FileTree {
    struct Signature: Equatable {
        let size: Int64
        let modified: Double
        let inode: UInt64
        /// The kernel's change time: a file deleted and another written in its place may get the
        /// inode back, with the same size and (simulated) modification time, but never this.
        let changed: Double

        init(_ entry: DirectoryEntry) {
            size = entry.size
            modified = entry.modificationTime
            inode = entry.inode
            changed = entry.changeTime
        }

        /// The same fields as `DirectoryEntry` takes them from `lstat`.
        init(_ info: stat) {
            size = Int64(info.st_size)
            modified = Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9
            inode = UInt64(info.st_ino)
            changed = Double(info.st_ctim.tv_sec) + Double(info.st_ctim.tv_nsec) / 1e9
        }
    }

    var files: [String: Signature] = [:]
    var excluded: [String] = []
    /// Transaction numbers of the log files in each folder (relative path).
    var logNumbers: [String: Set<Int64>] = [:]

    /// Walks `<root>/<prefix>` (symbolic links are not followed).
    static func list(_ root: String, under prefix: String) -> FileTree {
        var tree = FileTree()
        var pending = [prefix]
        while let relative = pending.popLast() {
            // Each entry is asked of the open folder (`fstatat`), not by its whole path: the
            // daemons list their mirrors at every scan, and walking the path was most of it.
            guard let directory = opendir(root + "/" + relative) else { continue }
            defer { closedir(directory) }
            let folder = dirfd(directory)
            for name in names(in: directory) {
                var info = stat()
                guard fstatat(folder, name, &info, AT_SYMLINK_NOFOLLOW) == 0 else { continue }
                let type = info.st_mode & S_IFMT
                let path = relative + "/" + name
                if name.hasSuffix(".nosync") {
                    if type == S_IFREG { tree.excluded.append(path) }
                } else if type == S_IFDIR {
                    pending.append(path)
                } else if type == S_IFREG {
                    tree.files[path] = Signature(info)
                    if let number = TransactionLog.transactionNumber(inFileName: name) { tree.logNumbers[relative, default: []].insert(number) }
                }
            }
        }
        return tree
    }

    /// The names in an open folder but `.` and `..`, sorted (as `DirectoryEntry.list` gives them).
    private static func names(in directory: OpaquePointer) -> [String] {
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names.sorted()
    }

    /// Brings the entry of one file up to date after it was written or removed, as `list` would
    /// find it now (`signature`: the file's, when the caller just looked). Returns `false` (and
    /// changes nothing) for a path `list` would not take at its word — under a `.nosync` name —
    /// so the caller lists again instead.
    mutating func refresh(_ path: String, in root: String, signature: Signature?? = nil) -> Bool {
        guard let slash = path.lastIndex(of: "/"), !path.split(separator: "/").contains(where: { $0.hasSuffix(".nosync") }) else { return false }
        let folder = String(path[..<slash])
        let old = files[path]
        files[path] = signature ?? Self.signature(root + "/" + path)
        guard old != nil || files[path] != nil,
              let number = TransactionLog.transactionNumber(inFileName: String(path[path.index(after: slash)...])) else { return true }
        // A regular file with the number is there: the folder holds it, whatever else does.
        if files[path] != nil {
            logNumbers[folder, default: []].insert(number)
            return true
        }
        // Gone: another file of the folder may carry the same transaction number: count them again.
        let numbers = Set(DirectoryEntry.names(root + "/" + folder, regularFilesOnly: true)
            .filter { !$0.hasSuffix(".nosync") }.compactMap { TransactionLog.transactionNumber(inFileName: $0) })
        logNumbers[folder] = numbers.isEmpty ? nil : numbers
        return true
    }

    /// The signature of one file now, or `nil` when it is not there.
    static func signature(_ path: String) -> Signature? {
        DirectoryEntry.at(path).flatMap { $0.isRegularFile ? Signature($0) : nil }
    }
}
