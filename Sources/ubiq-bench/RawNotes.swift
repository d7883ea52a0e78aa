import CSQLite
import Foundation

/// The reference every Ubiquity figure is compared with: the same `Note` rows through raw
/// SQLite prepared statements (C API), with the pragmas Ubiquity's stores use (WAL,
/// `synchronous=NORMAL`), one table `note(gid PRIMARY KEY, title, body, created, pinned)`.
/// `durable` makes each commit wait for the disk (`synchronous=FULL`), as a log file's fsync does.
final class RawNotes {
    private let db: OpaquePointer
    private var insertStatement: OpaquePointer?
    private var updateStatement: OpaquePointer?
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    init(path: String, durable: Bool = false) throws {
        var handle: OpaquePointer?
        guard sqlite3_open_v2(path, &handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nil) == SQLITE_OK, let handle else {
            sqlite3_close(handle)
            throw BenchmarkError("cannot open raw SQLite at \(path)")
        }
        db = handle
        try execute("PRAGMA journal_mode=WAL; PRAGMA synchronous=\(durable ? "FULL" : "NORMAL"); PRAGMA foreign_keys=OFF; PRAGMA cache_size=-65536")
        try execute("CREATE TABLE IF NOT EXISTS note (gid TEXT PRIMARY KEY, title TEXT, body TEXT, created REAL, pinned INTEGER) WITHOUT ROWID")
        insertStatement = try prepare("INSERT INTO note VALUES (?, ?, ?, ?, ?)")
        updateStatement = try prepare("UPDATE note SET title = ? WHERE gid = ?")
    }

    deinit {
        sqlite3_finalize(insertStatement)
        sqlite3_finalize(updateStatement)
        sqlite3_close(db)
    }

    /// Inserts `rows` in one transaction.
    func insert<Rows: Collection>(_ rows: Rows) throws where Rows.Element == NoteRow {
        try transaction {
            for row in rows {
                sqlite3_bind_text(insertStatement, 1, row.gid, -1, Self.transient)
                sqlite3_bind_text(insertStatement, 2, row.title, -1, Self.transient)
                sqlite3_bind_text(insertStatement, 3, row.body, -1, Self.transient)
                sqlite3_bind_double(insertStatement, 4, row.created)
                sqlite3_bind_int64(insertStatement, 5, row.pinned ? 1 : 0)
                try step(insertStatement)
            }
        }
    }

    /// Gives every row of `rows` its updated title, in one transaction.
    func updateTitles<Rows: Collection>(_ rows: Rows) throws where Rows.Element == NoteRow {
        try transaction {
            for row in rows {
                sqlite3_bind_text(updateStatement, 1, row.updatedTitle, -1, Self.transient)
                sqlite3_bind_text(updateStatement, 2, row.gid, -1, Self.transient)
                try step(updateStatement)
            }
        }
    }

    /// Copies every row into `target` as an app would: one SELECT, one reused INSERT, one transaction.
    func copy(into target: RawNotes) throws {
        let select = try prepare("SELECT gid, title, body, created, pinned FROM note")
        defer { sqlite3_finalize(select) }
        try target.transaction {
            while sqlite3_step(select) == SQLITE_ROW {
                for column in Int32(0)..<5 {
                    // Bind each column as whichever storage class it holds (the copy keeps the bytes).
                    sqlite3_bind_value(target.insertStatement, column + 1, sqlite3_column_value(select, column))
                }
                try target.step(target.insertStatement)
            }
        }
    }

    /// A consistent copy of the database in one new file (what a baseline's store file is).
    func vacuum(into path: String) throws {
        try execute("VACUUM INTO '\(path.replacingOccurrences(of: "'", with: "''"))'")
    }

    var count: Int {
        guard let statement = try? prepare("SELECT count(*) FROM note") else { return -1 }
        defer { sqlite3_finalize(statement) }
        return sqlite3_step(statement) == SQLITE_ROW ? Int(sqlite3_column_int64(statement, 0)) : -1
    }

    private func transaction(_ body: () throws -> Void) throws {
        try execute("BEGIN IMMEDIATE")
        do { try body() } catch {
            try? execute("ROLLBACK")
            throw error
        }
        try execute("COMMIT")
    }

    private func step(_ statement: OpaquePointer?) throws {
        let code = sqlite3_step(statement)
        sqlite3_reset(statement)
        guard code == SQLITE_DONE else { throw BenchmarkError("raw SQLite: \(String(cString: sqlite3_errmsg(db)))") }
    }

    private func prepare(_ sql: String) throws -> OpaquePointer? {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK else {
            throw BenchmarkError("raw SQLite: \(String(cString: sqlite3_errmsg(db))) in \(sql)")
        }
        return statement
    }

    private func execute(_ sql: String) throws {
        guard sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK else {
            throw BenchmarkError("raw SQLite: \(String(cString: sqlite3_errmsg(db))) in \(sql)")
        }
    }
}
