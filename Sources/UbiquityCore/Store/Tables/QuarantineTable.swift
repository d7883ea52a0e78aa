import Foundation
import UbiquityBase

/// `Z_QUARANTINE`: the files from the cloud set aside instead of applied, by path relative to
/// the ubiquity root. Its callers hold the store's lock.
struct QuarantineTable {
    let database: SQLiteDatabase

    private static let columns = "path, size, mtime, signature, reason, recorded, retryAfter"

    func all() throws -> [QuarantineRecord] {
        try database.statement("SELECT \(Self.columns) FROM Z_QUARANTINE ORDER BY path").rows(Self.record)
    }

    /// Sets `file` at `path` aside for `reason` at `now`, until it changes (or until `retryAfter`).
    func add(path: String, file: DirectoryEntry, reason: String, now: Double, retryAfter: Double?) throws {
        try database.run("INSERT OR REPLACE INTO Z_QUARANTINE (path, size, mtime, signature, reason, recorded, retryAfter) VALUES (?, ?, ?, ?, ?, ?, ?)",
                         [.text(path), .integer(file.size), .real(file.modificationTime), .text(file.signature), .text(reason), .real(now),
                          retryAfter.map(SQLiteValue.real) ?? .null])
    }

    func remove(path: String) throws {
        try database.run("DELETE FROM Z_QUARANTINE WHERE path = ?", [.text(path)])
    }

    /// Stores made before signatures were kept get the columns; their records match no file,
    /// so each such file is read once more and recorded again with its signature.
    func addSignatureColumns() throws {
        let columns = try database.statement("PRAGMA table_info(Z_QUARANTINE)").rows { $0.string(1) ?? "" }
        if !columns.contains("signature") { try database.execute("ALTER TABLE Z_QUARANTINE ADD COLUMN signature TEXT") }
        if !columns.contains("retryAfter") { try database.execute("ALTER TABLE Z_QUARANTINE ADD COLUMN retryAfter REAL") }
    }

    private static func record(_ row: SQLiteStatement) -> QuarantineRecord {
        QuarantineRecord(path: row.string(0) ?? "", size: row.int64(1), modificationTime: row.double(2), signature: row.string(3),
                         reason: row.string(4) ?? "", recorded: Date(timeIntervalSince1970: row.double(5)),
                         retryAfter: row.isNull(6) ? nil : row.double(6))
    }
}
