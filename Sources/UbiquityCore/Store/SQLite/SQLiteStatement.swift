import CSQLite
import Foundation
import UbiquityPlist

/// SQLite's "copy the bytes now" destructor, which the C headers define as a macro Swift cannot import.
let SQLITE_TRANSIENT = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

/// A value SQLite can store in a column: the five storage classes.
public enum SQLiteValue: Sendable, Equatable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])

    /// As SQLite compares them (BINARY): text by its exact bytes, not by `String`'s canonical
    /// equivalence, so a row holding "café" precomposed differs from one holding it decomposed.
    public static func == (lhs: SQLiteValue, rhs: SQLiteValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case let (.integer(a), .integer(b)): return a == b
        case let (.real(a), .real(b)): return a == b
        case let (.text(a), .text(b)): return a.isExactly(b)
        case let (.blob(a), .blob(b)): return a == b
        default: return false
        }
    }
}

/// A prepared statement. Owned by one `SQLiteDatabase`, reused across executions through its cache.
public final class SQLiteStatement {
    let handle: OpaquePointer
    let sql: String
    unowned let database: SQLiteDatabase

    init(database: SQLiteDatabase, sql: String) throws(SQLiteError) {
        var handle: OpaquePointer?
        let code = sqlite3_prepare_v3(database.handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &handle, nil)
        guard code == SQLITE_OK, let handle else {
            throw SQLiteError(code: code, connection: database.handle, sql: sql)
        }
        self.handle = handle
        self.sql = sql
        self.database = database
    }

    deinit { sqlite3_finalize(handle) }

    /// Clears previous bindings and results so the statement can run again.
    @discardableResult
    public func reset() -> SQLiteStatement {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
        return self
    }

    /// Resets the statement but keeps its bindings, for a caller that rebinds every parameter.
    @discardableResult
    func rewind() -> SQLiteStatement {
        sqlite3_reset(handle)
        return self
    }

    // MARK: Binding (1-based indexes, as SQLite)

    public func bind(_ value: SQLiteValue, at index: Int32) throws(SQLiteError) {
        switch value {
        case .null: try check(sqlite3_bind_null(handle, index))
        case let .integer(v): try bind(int64: v, at: index)
        case let .real(v): try bind(double: v, at: index)
        case let .text(v): try bind(text: v, at: index)
        case let .blob(v):
            try check(v.withUnsafeBytes { raw in
                sqlite3_bind_blob(handle, index, raw.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32(raw.count), SQLITE_TRANSIENT)
            })
        }
    }

    func bind(int64 value: Int64, at index: Int32) throws(SQLiteError) { try check(sqlite3_bind_int64(handle, index, value)) }

    func bind(double value: Double, at index: Int32) throws(SQLiteError) { try check(sqlite3_bind_double(handle, index, value)) }

    /// Binds a copy of `text`'s UTF-8 bytes.
    func bind(text: String, at index: Int32) throws(SQLiteError) {
        // The UTF-8 byte count, never -1: a string may hold U+0000, and -1 would cut it there.
        var text = text
        try check(text.withUTF8 { bytes in
            bytes.withMemoryRebound(to: CChar.self) { chars in
                // An empty string still needs a pointer, or SQLite stores NULL.
                sqlite3_bind_text(handle, index, chars.baseAddress ?? UnsafePointer(bitPattern: 1), Int32(chars.count), SQLITE_TRANSIENT)
            }
        })
    }

    private func check(_ code: Int32) throws(SQLiteError) {
        guard code == SQLITE_OK else { throw SQLiteError(code: code, connection: database.handle, sql: sql) }
    }

    /// Binds `text` at `index` without SQLite copying it and runs `body`, which steps the
    /// statement: the binding points into the string's storage, valid only while `body` runs.
    /// So every caller rebinds (or clears) that parameter before the statement steps again. The
    /// merge binds every row's gid this way: the copy cost an allocation per row.
    func withText<Result>(_ text: String, boundAt index: Int32, _ body: () throws -> Result) throws -> Result {
        var text = text
        return try text.withUTF8 { bytes in
            let code = bytes.withMemoryRebound(to: CChar.self) { chars in
                sqlite3_bind_text(handle, index, chars.baseAddress ?? UnsafePointer(bitPattern: 1), Int32(chars.count), nil)
            }
            guard code == SQLITE_OK else { throw SQLiteError(code: code, connection: database.handle, sql: sql) }
            return try body()
        }
    }

    public func bind(_ value: String?, at index: Int32) throws(SQLiteError) {
        try bind(value.map(SQLiteValue.text) ?? .null, at: index)
    }

    public func bind(_ value: Int64?, at index: Int32) throws(SQLiteError) {
        try bind(value.map(SQLiteValue.integer) ?? .null, at: index)
    }

    public func bind(_ value: Int, at index: Int32) throws(SQLiteError) {
        try bind(.integer(Int64(value)), at: index)
    }

    public func bind(_ value: Double?, at index: Int32) throws(SQLiteError) {
        try bind(value.map(SQLiteValue.real) ?? .null, at: index)
    }

    public func bind(_ value: [UInt8]?, at index: Int32) throws(SQLiteError) {
        try bind(value.map(SQLiteValue.blob) ?? .null, at: index)
    }

    /// Binds every value in order, starting at index 1.
    @discardableResult
    public func bind(_ values: [SQLiteValue]) throws(SQLiteError) -> SQLiteStatement {
        for (offset, value) in values.enumerated() { try bind(value, at: Int32(offset + 1)) }
        return self
    }

    // MARK: Stepping

    /// Advances to the next row; `false` when the statement is done.
    public func step() throws(SQLiteError) -> Bool {
        let code = sqlite3_step(handle)
        // Anything but the end may leave it mid-read (`SQLiteDatabase.resetActiveStatements`).
        if code != SQLITE_DONE { database.mayHaveActiveStatements = true }
        switch code {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw SQLiteError(code: code, connection: database.handle, sql: sql)
        }
    }

    /// Runs a statement that returns no rows, then resets it (a finished statement can still
    /// hold resources, e.g. the file a `VACUUM INTO` wrote, until it is reset).
    public func run() throws(SQLiteError) {
        defer { sqlite3_reset(handle) }
        while try step() {}
    }

    /// Runs the statement and maps every row.
    public func rows<T>(_ transform: (SQLiteStatement) throws -> T) throws -> [T] {
        var result: [T] = []
        while try step() { result.append(try transform(self)) }
        return result
    }

    // MARK: Columns (0-based indexes, as SQLite)

    public var columnCount: Int32 { sqlite3_column_count(handle) }

    public func columnName(_ index: Int32) -> String { String(cString: sqlite3_column_name(handle, index)) }

    public func isNull(_ index: Int32) -> Bool { sqlite3_column_type(handle, index) == SQLITE_NULL }

    public func int64(_ index: Int32) -> Int64 { sqlite3_column_int64(handle, index) }

    public func int(_ index: Int32) -> Int { Int(sqlite3_column_int64(handle, index)) }

    public func double(_ index: Int32) -> Double { sqlite3_column_double(handle, index) }

    public func string(_ index: Int32) -> String? {
        guard let text = sqlite3_column_text(handle, index) else { return nil }
        let count = Int(sqlite3_column_bytes(handle, index))
        return String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
    }

    /// The column's text bytes as SQLite holds them, without making a string (`nil` for NULL).
    func withTextBytes<Result>(_ index: Int32, _ body: (UnsafeRawBufferPointer) -> Result) -> Result? {
        guard let text = sqlite3_column_text(handle, index) else { return nil }
        return body(UnsafeRawBufferPointer(start: text, count: Int(sqlite3_column_bytes(handle, index))))
    }

    public func blob(_ index: Int32) -> [UInt8]? {
        guard sqlite3_column_type(handle, index) != SQLITE_NULL else { return nil }
        let count = Int(sqlite3_column_bytes(handle, index))
        guard count > 0, let pointer = sqlite3_column_blob(handle, index) else { return [] }
        return Array(UnsafeRawBufferPointer(start: pointer, count: count))
    }

    /// The column as whichever storage class SQLite holds it in.
    public func value(_ index: Int32) -> SQLiteValue {
        switch sqlite3_column_type(handle, index) {
        case SQLITE_INTEGER: return .integer(int64(index))
        case SQLITE_FLOAT: return .real(double(index))
        case SQLITE_TEXT: return .text(string(index) ?? "")
        case SQLITE_BLOB: return .blob(blob(index) ?? [])
        default: return .null
        }
    }
}
