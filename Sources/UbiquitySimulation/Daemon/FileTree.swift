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
            let path = root + "/" + relative
            for entry in DirectoryEntry.list(path) {
                let path = relative + "/" + entry.name
                if entry.name.hasSuffix(".nosync") {
                    if entry.isRegularFile { tree.excluded.append(path) }
                } else if entry.isDirectory {
                    pending.append(path)
                } else if entry.isRegularFile {
                    tree.files[path] = Signature(entry)
                    if let number = TransactionLog.transactionNumber(inFileName: entry.name) { tree.logNumbers[relative, default: []].insert(number) }
                }
            }
        }
        return tree
    }

    /// Brings the entry of one file up to date after it was written or removed, as `list` would
    /// find it now. Returns `false` (and changes nothing) for a path `list` would not take at
    /// its word — under a `.nosync` name — so the caller lists again instead.
    mutating func refresh(_ path: String, in root: String) -> Bool {
        guard let slash = path.lastIndex(of: "/"), !path.split(separator: "/").contains(where: { $0.hasSuffix(".nosync") }) else { return false }
        let folder = String(path[..<slash])
        let old = files[path]
        files[path] = Self.signature(root + "/" + path)
        guard old != nil || files[path] != nil,
              TransactionLog.transactionNumber(inFileName: String(path[path.index(after: slash)...])) != nil else { return true }
        // Another file of the folder may carry the same transaction number: count them again.
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
