import CSQLite

/// An error reported by SQLite, with SQLite's own message and the statement that failed.
public struct SQLiteError: Error, CustomStringConvertible, Sendable {
    /// SQLite's primary result code (e.g. `SQLITE_BUSY` = 5, `SQLITE_CONSTRAINT` = 19).
    public let code: Int32
    public let message: String
    public let sql: String?

    public var description: String {
        var text = "SQLite error \(code): \(message)"
        if let sql { text += " (in: \(sql.prefix(200)))" }
        return text
    }
}

extension SQLiteError {
    init(code: Int32, connection: OpaquePointer?, sql: String?) {
        let message = connection.flatMap { sqlite3_errmsg($0) }.map { String(cString: $0) }
            ?? String(cString: sqlite3_errstr(code))
        self.init(code: code & 0xff, message: message, sql: sql)
    }
}
