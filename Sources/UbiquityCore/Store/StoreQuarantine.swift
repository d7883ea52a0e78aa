import Foundation

/// A file from the cloud that was set aside instead of applied.
public struct QuarantineRecord: Sendable, Equatable {
    /// Path relative to the ubiquity root.
    public let path: String
    public let size: Int64
    public let modificationTime: Double
    public let reason: String
    public let recorded: Date
}

// Files once quarantined are skipped until they change (size or modification time), so a bad
// file is reported once and never stops the import of other logs.
extension PersistentStore {
    public func quarantined() throws -> [QuarantineRecord] {
        try locked {
            try database.statement("SELECT path, size, mtime, reason, recorded FROM Z_QUARANTINE ORDER BY path").rows {
                QuarantineRecord(path: $0.string(0) ?? "", size: $0.int64(1), modificationTime: $0.double(2),
                                 reason: $0.string(3) ?? "", recorded: Date(timeIntervalSince1970: $0.double(4)))
            }
        }
    }

    package func isQuarantined(path: String, size: Int64, modificationTime: Double) throws -> Bool {
        try locked {
            let statement = try database.statement("SELECT 1 FROM Z_QUARANTINE WHERE path = ? AND size = ? AND mtime = ?")
            try statement.bind([.text(path), .integer(size), .real(modificationTime)])
            return try statement.step()
        }
    }

    package func recordQuarantine(path: String, size: Int64, modificationTime: Double, reason: String) throws {
        try locked {
            try database.run("INSERT OR REPLACE INTO Z_QUARANTINE (path, size, mtime, reason, recorded) VALUES (?, ?, ?, ?, ?)",
                             [.text(path), .integer(size), .real(modificationTime), .text(reason), .real(now)])
        }
    }

    package func clearQuarantine(path: String) throws {
        try locked { try database.run("DELETE FROM Z_QUARANTINE WHERE path = ?", [.text(path)]) }
    }
}
