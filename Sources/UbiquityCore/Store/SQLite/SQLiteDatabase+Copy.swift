import Foundation

extension SQLiteDatabase {
    /// The first bytes of every SQLite database file.
    package static let fileHeader = Array("SQLite format 3\0".utf8)

    /// Writes a consistent copy of the database at `source` to `destination`, one file holding
    /// what its WAL holds too: `VACUUM INTO` through a read-only connection reads one snapshot,
    /// so a writer in another process goes on meanwhile and a half-copied WAL is never taken.
    package static func copyConsistently(from source: String, to destination: String) throws(SQLiteError) {
        let database = try SQLiteDatabase(path: source, readOnly: true)
        defer { database.close() }
        try database.execute("VACUUM INTO \(quoteLiteral(destination))")
    }
}
