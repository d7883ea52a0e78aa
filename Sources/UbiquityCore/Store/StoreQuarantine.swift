import Foundation
import UbiquityBase

/// A file from the cloud that was set aside instead of applied.
public struct QuarantineRecord: Sendable, Equatable {
    /// Path relative to the ubiquity root.
    public let path: String
    public let size: Int64
    public let modificationTime: Double
    /// The file's `DirectoryEntry.signature` when it was set aside (size, modification time,
    /// inode and change time; `nil` in records written before signatures were kept).
    public let signature: String?
    public let reason: String
    public let recorded: Date
    /// When the reason may no longer hold although the file is unchanged (seconds since 1970):
    /// a log stamped too far ahead of this machine's clock is tried again once the clock has
    /// come near enough. `nil`: only a change of the file ends the quarantine.
    public let retryAfter: Double?

    /// Whether `file` is the very file that was set aside, unchanged.
    public func matches(_ file: DirectoryEntry) -> Bool { signature == file.signature }

    /// Whether the record still holds for `file` at `now` (seconds since 1970): the file is
    /// unchanged and no retry is due.
    public func holds(for file: DirectoryEntry, now: Double) -> Bool { matches(file) && retryAfter.map { now < $0 } ?? true }
}

// A file once quarantined is skipped, without being read, while its signature stays the same:
// a bad file is reported once and costs nothing after. Any change of its bytes (or of its mode:
// a file a file-sync tool wrote unreadable and then fixed) changes its change time, so it is
// tried again.
extension PersistentStore {
    public func quarantined() throws -> [QuarantineRecord] {
        try locked {
            try database.statement("SELECT \(PersistentStore.quarantineColumns) FROM Z_QUARANTINE ORDER BY path").rows(PersistentStore.readQuarantineRecord)
        }
    }

    /// The signature of every file whose quarantine holds now unless it changed, by path: a
    /// scan of many files asks once.
    package func quarantineSignatures() throws -> [String: String] {
        try locked {
            var signatures: [String: String] = [:]
            let statement = try database.statement("SELECT path, signature FROM Z_QUARANTINE WHERE signature IS NOT NULL AND (retryAfter IS NULL OR retryAfter > ?)")
            try statement.bind(.real(now), at: 1)
            while try statement.step() { signatures[statement.string(0) ?? ""] = statement.string(1) }
            return signatures
        }
    }

    /// The record of `path`, if it was set aside (its file may have changed since).
    package func quarantineRecord(path: String) throws -> QuarantineRecord? {
        try locked {
            try database.statement("SELECT \(PersistentStore.quarantineColumns) FROM Z_QUARANTINE WHERE path = ?").bind([.text(path)])
                .rows(PersistentStore.readQuarantineRecord).first
        }
    }

    /// Whether `file` at `path` was set aside and the quarantine still holds (see `QuarantineRecord.holds`).
    package func isQuarantined(path: String, file: DirectoryEntry) throws -> Bool {
        try quarantineRecord(path: path)?.holds(for: file, now: now) ?? false
    }

    /// Sets `file` at `path` aside for `reason`, until it changes (or, with `retryAfter`, until then).
    package func recordQuarantine(path: String, file: DirectoryEntry, reason: String, retryAfter: Double? = nil) throws {
        try locked {
            try database.run("INSERT OR REPLACE INTO Z_QUARANTINE (path, size, mtime, signature, reason, recorded, retryAfter) VALUES (?, ?, ?, ?, ?, ?, ?)",
                             [.text(path), .integer(file.size), .real(file.modificationTime), .text(file.signature), .text(reason), .real(now),
                              retryAfter.map(SQLiteValue.real) ?? .null])
        }
    }

    private static let quarantineColumns = "path, size, mtime, signature, reason, recorded, retryAfter"

    private static func readQuarantineRecord(_ row: SQLiteStatement) -> QuarantineRecord {
        QuarantineRecord(path: row.string(0) ?? "", size: row.int64(1), modificationTime: row.double(2), signature: row.string(3),
                         reason: row.string(4) ?? "", recorded: Date(timeIntervalSince1970: row.double(5)),
                         retryAfter: row.isNull(6) ? nil : row.double(6))
    }

    package func clearQuarantine(path: String) throws {
        try locked { try database.run("DELETE FROM Z_QUARANTINE WHERE path = ?", [.text(path)]) }
    }

    /// Stores made before signatures were kept get the columns; their records match no file,
    /// so each such file is read once more and recorded again with its signature.
    func addQuarantineSignatureColumns() throws {
        let columns = try database.statement("PRAGMA table_info(Z_QUARANTINE)").rows { $0.string(1) ?? "" }
        if !columns.contains("signature") { try database.execute("ALTER TABLE Z_QUARANTINE ADD COLUMN signature TEXT") }
        if !columns.contains("retryAfter") { try database.execute("ALTER TABLE Z_QUARANTINE ADD COLUMN retryAfter REAL") }
    }
}
