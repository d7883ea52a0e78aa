import Foundation
import Ubiquity

/// The regular files under one account of a cloud or mirror, by path relative to the root,
/// with what tells a daemon a file changed. `.nosync` names are listed apart: they never travel.
struct FileTree {
    struct Signature: Equatable {
        let size: Int64
        let modified: Double
        let inode: UInt64

        init(_ entry: DirectoryEntry) {
            size = entry.size
            modified = entry.modificationTime
            inode = entry.inode
        }
    }

    var files: [String: Signature] = [:]
    var excluded: [String] = []
    /// Transaction numbers of the log files in each folder (relative path).
    var logNumbers: [String: Set<Int64>] = [:]

    /// Walks `<root>/<prefix>` (symbolic links are not followed); `cache` saves listing
    /// folders that did not change since the last walk.
    static func list(_ root: String, under prefix: String, cache: ListingCache? = nil) -> FileTree {
        var tree = FileTree()
        var pending = [prefix]
        while let relative = pending.popLast() {
            let path = root + "/" + relative
            for entry in cache?.list(path) ?? DirectoryEntry.list(path) {
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

    /// Folder listings kept while the folder's modification time stays the same. Every writer
    /// here replaces files by rename, which touches the folder; a folder touched in the last
    /// moments is listed again, since file times are only as fine as the kernel's clock tick.
    final class ListingCache {
        private var listings: [String: (modified: Double, entries: [DirectoryEntry])] = [:]

        func list(_ path: String) -> [DirectoryEntry] {
            guard let folder = DirectoryEntry.at(path), folder.isDirectory else {
                listings[path] = nil
                return []
            }
            if let cached = listings[path], cached.modified == folder.modificationTime { return cached.entries }
            let entries = DirectoryEntry.list(path)
            if Date().timeIntervalSince1970 - folder.modificationTime > 0.1 {
                listings[path] = (folder.modificationTime, entries)
            } else {
                listings[path] = nil
            }
            return entries
        }
    }

    /// The signature of one file now, or `nil` when it is not there.
    static func signature(_ path: String) -> Signature? {
        DirectoryEntry.at(path).flatMap { $0.isRegularFile ? Signature($0) : nil }
    }
}
