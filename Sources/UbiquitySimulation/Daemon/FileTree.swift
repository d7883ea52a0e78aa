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

    /// The signature of one file now, or `nil` when it is not there.
    static func signature(_ path: String) -> Signature? {
        DirectoryEntry.at(path).flatMap { $0.isRegularFile ? Signature($0) : nil }
    }
}
