import Foundation
import UbiquityBase
import UbiquityCore
import UbiquitySync

/// The files of a device and of its container copied into a bug report's folder: a store
/// copied consistently, and nothing a device keeps only for itself at this moment.
enum BugReportCopy {
    /// Copies the device folder at `source` to `destination`, leaving out lock files, temporary
    /// `.nosync` files, the content key and SQLite's WAL, shared-memory and journal files (each
    /// database is copied with what they hold, from one snapshot). Returns what was left out,
    /// relative to `source`.
    static func copyDevice(from source: String, to destination: String) throws -> [String] {
        var left: [String] = []
        for relative in FolderArchive.regularFiles(below: source) {
            let name = (relative as NSString).lastPathComponent
            // The content key is a secret, never in a report: sealed files stay sealed.
            if name.hasPrefix(".lock") || ContainerLocation.isTemporary(name) || name == StoreFolder.keyFileName
                || ["-wal", "-shm", "-journal"].contains(where: { name.hasSuffix($0) }) {
                left.append(relative)
                continue
            }
            let target = destination + "/" + relative
            try FileManager.default.createDirectory(atPath: (target as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            if isDatabase(source + "/" + relative) {
                try SQLiteDatabase.copyConsistently(from: source + "/" + relative, to: target)
            } else {
                try FileManager.default.copyItem(atPath: source + "/" + relative, toPath: target)
            }
            try FileTime.copy(from: source + "/" + relative, to: target)
        }
        return left
    }

    /// Copies every regular file below `source` (links are not followed) to `destination`, as
    /// it is, with its modification time: sealed files stay sealed, and a damaged one stays damaged.
    static func copyTree(from source: String, to destination: String) throws {
        try FileManager.default.createDirectory(atPath: destination, withIntermediateDirectories: true)
        for relative in FolderArchive.regularFiles(below: source) {
            let target = destination + "/" + relative
            try FileManager.default.createDirectory(atPath: (target as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: source + "/" + relative, toPath: target)
            try FileTime.copy(from: source + "/" + relative, to: target)
        }
    }

    /// Whether the file at `path` starts as an SQLite database does.
    static func isDatabase(_ path: String) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        let header = (try? handle.read(upToCount: SQLiteDatabase.fileHeader.count)) ?? Data()
        return Array(header) == SQLiteDatabase.fileHeader
    }
}
