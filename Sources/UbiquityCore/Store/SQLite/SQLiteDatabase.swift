import CSQLite
import Foundation
import Synchronization

/// One SQLite connection with a cache of prepared statements.
///
/// Not thread-safe by itself: its owner (a `PersistentStore`) serializes access.
public final class SQLiteDatabase {
    let handle: OpaquePointer
    public let path: String
    /// Unique among the connections this process opened (an address can be reused once a
    /// connection is gone): what holders of its statements compare, without a weak reference.
    let serial: UInt64 = lastConnectionSerial.add(1, ordering: .relaxed).newValue
    private var statements: [String: SQLiteStatement] = [:]
    private var transactionDepth = 0
    /// Whether a read transaction begun by `lingeringRead` is still open.
    private(set) var isLingering = false
    /// A statement stepped since the last `resetActiveStatements` stopped at a row or an error
    /// (`SQLiteStatement.step`): it may still hold a read open.
    var mayHaveActiveStatements = false
    /// How many read transactions `lingeringRead` has begun: a reader that checks something
    /// once per snapshot knows by it when a new one began.
    private(set) var lingeringReads: UInt64 = 0
    /// Set by `checkpointInBackground`.
    private(set) var checkpointer: WALCheckpointer?
    /// Values `MetadataTable` read from `main.Z_META` outside a transaction, by key, with the
    /// connection's count of changed rows then: a sync asks the content epoch a few times,
    /// and each read outside a transaction took and dropped SQLite's file locks.
    var metadataCache: [String: (changes: Int64, value: String?)] = [:]

    /// Rows this connection has changed since it opened, rolled back or not: only this
    /// connection writes a store's file, so a value read at one count is current while the
    /// count stays.
    var totalChanges: Int64 { sqlite3_total_changes64(handle) }

    /// Whether a transaction begun by `transaction` is open (its changes may still be rolled back).
    var isInTransaction: Bool { transactionDepth > 0 }

    /// Results of reads a sync makes every time (the sent logs, the outbox), by a key naming
    /// the read, with `totalChanges` when they were read.
    private var unchangedReads: [String: (changes: Int64, value: any Sendable)] = [:]

    /// What `read` gives, from the last time `key` was read when this connection changed no
    /// row since; read afresh inside a transaction (which could still roll back). `read` must
    /// depend on nothing but the database.
    func unchangedRead<T: Sendable>(_ key: String, _ read: () throws -> T) throws -> T {
        guard !isInTransaction else { return try read() }
        let changes = totalChanges
        if let known = unchangedReads[key], known.changes == changes, let value = known.value as? T { return value }
        let value = try read()
        unchangedReads[key] = (changes, value)
        return value
    }

    /// How long a statement waits for another connection's lock before failing, in milliseconds.
    static let busyTimeout: Int32 = 10_000

    /// The page cache a writing connection keeps, in KiB (SQLite's default is 2 MiB).
    static let pageCacheKiB = 65_536

    /// Opens (creating if needed) the database at `path`, in WAL mode with a busy timeout.
    public init(path: String, readOnly: Bool = false) throws(SQLiteError) {
        var handle: OpaquePointer?
        let flags = readOnly
            ? SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX
            : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        let code = sqlite3_open_v2(path, &handle, flags, nil)
        guard code == SQLITE_OK, let handle else {
            let error = SQLiteError(code: code, connection: handle, sql: nil)
            sqlite3_close_v2(handle)
            throw error
        }
        self.handle = handle
        self.path = path
        sqlite3_busy_timeout(handle, Self.busyTimeout)
        sqlite3_extended_result_codes(handle, 1)
        if !readOnly {
            try execute("PRAGMA journal_mode=WAL")
            try execute("PRAGMA synchronous=NORMAL")
            // 64 MiB of page cache (the default is 2): an import touches rows all over the table,
            // and with a small cache every batch spills pages to the WAL and reads them back.
            try execute("PRAGMA cache_size=-\(Self.pageCacheKiB)")
        }
        try execute("PRAGMA foreign_keys=OFF")
    }

    /// Set by `close()`: every later statement fails rather than touch a closed connection.
    private(set) var isClosed = false

    /// Closes the connection now (SQLite checkpoints what is left when it is the last one); every
    /// later `execute` and `statement` throws. Also done when the object goes away.
    func close() {
        guard !isClosed else { return }
        endLingeringRead()
        statements.removeAll()
        unchangedReads.removeAll()
        // Before the close, which checkpoints what is left once it is the last connection.
        checkpointer?.stop()
        sqlite3_close_v2(handle)
        isClosed = true
    }

    deinit { close() }

    private func refuseIfClosed(_ sql: String) throws(SQLiteError) {
        if isClosed { throw SQLiteError(code: SQLITE_MISUSE, message: "the connection was closed", sql: sql) }
    }

    /// Lets the WAL's checkpoints move out of the commits that fill it, onto a thread and
    /// connection of their own (`WALCheckpointer`), for the commits made in
    /// `checkpointingBeside`. For a database this process writes and keeps open.
    func checkpointInBackground(threshold: Int32 = WALCheckpointer.defaultThreshold) {
        guard checkpointer == nil else { return }
        let checkpointer = WALCheckpointer(path: path, threshold: threshold)
        WALCheckpointer.install(checkpointer, on: handle)
        self.checkpointer = checkpointer
    }

    /// Runs `body`, whose commits leave their checkpoint to the thread beside
    /// (`checkpointInBackground`; without it, as ever, they checkpoint themselves).
    func checkpointingBeside<T>(_ body: () throws -> T) rethrows -> T {
        checkpointer?.besideCommits = true
        defer { checkpointer?.besideCommits = false }
        return try body()
    }

    /// Waits for a checkpoint running beside the commits, if any.
    func waitForCheckpointBeside() {
        checkpointer?.waitUntilIdle()
    }

    /// Runs one or more SQL statements that take no parameters.
    public func execute(_ sql: String) throws(SQLiteError) {
        try refuseIfClosed(sql)
        if isLingering { endLingeringRead() }
        var error: UnsafeMutablePointer<CChar>?
        let code = sqlite3_exec(handle, sql, nil, nil, &error)
        if code != SQLITE_OK {
            let message = error.map { String(cString: $0) } ?? String(cString: sqlite3_errstr(code))
            sqlite3_free(error)
            throw SQLiteError(code: code & 0xff, message: message, sql: sql)
        }
    }

    /// A prepared statement for `sql`, reset and ready to bind; prepared once, then reused.
    public func statement(_ sql: String) throws(SQLiteError) -> SQLiteStatement {
        try refuseIfClosed(sql)
        if let cached = statements[sql] { return cached.reset() }
        let statement = try SQLiteStatement(database: self, sql: sql)
        statements[sql] = statement
        return statement
    }

    /// Runs `sql` with `arguments` and returns nothing.
    public func run(_ sql: String, _ arguments: [SQLiteValue] = []) throws(SQLiteError) {
        if isLingering { endLingeringRead() }
        try statement(sql).bind(arguments).run()
    }

    /// Runs `body` inside one transaction (nested calls join the outer one through savepoints).
    public func transaction<T>(_ body: () throws -> T) throws -> T {
        let savepoint = "sp\(transactionDepth)"
        if transactionDepth == 0 {
            try execute("BEGIN IMMEDIATE")
        } else {
            try execute("SAVEPOINT \(savepoint)")
        }
        transactionDepth += 1
        do {
            let result = try body()
            transactionDepth -= 1
            try execute(transactionDepth == 0 ? "COMMIT" : "RELEASE \(savepoint)")
            return result
        } catch {
            transactionDepth -= 1
            if transactionDepth == 0 {
                try? execute("ROLLBACK")
            } else {
                try? execute("ROLLBACK TO \(savepoint); RELEASE \(savepoint)")
            }
            throw error
        }
    }

    /// Runs `body`, a few reads, inside a read transaction that stays open after it returns,
    /// so that the next call reads in the same snapshot. Each read outside a transaction takes
    /// and drops SQLite's file locks (four `fcntl` calls), which cost more than a lookup by key;
    /// a context checks every key it inserts this way. `execute` (so `transaction` too) ends the
    /// read first, and the owner ends it before any other work (`endLingeringRead`), so no later
    /// read sees an old snapshot and no write joins the read's transaction. `body` must only read.
    func lingeringRead<T>(_ body: () throws -> T) throws -> T {
        if !isLingering {
            // In a transaction already, the reads are that transaction's.
            guard transactionDepth == 0, sqlite3_get_autocommit(handle) != 0 else { return try body() }
            try execute("BEGIN DEFERRED")
            isLingering = true
            lingeringReads += 1
        }
        do { return try body() } catch {
            endLingeringRead()
            throw error
        }
    }

    /// Ends the read `lingeringRead` left open, if any.
    func endLingeringRead() {
        guard isLingering else { return }
        isLingering = false
        resetActiveStatements()
        // Only read: committing cannot lose anything, and a failed commit is rolled back.
        if sqlite3_exec(handle, "COMMIT", nil, nil, nil) != SQLITE_OK { sqlite3_exec(handle, "ROLLBACK", nil, nil, nil) }
    }

    /// Resets every statement left in the middle of its rows, so no read stays open (an open
    /// read blocks `VACUUM` and keeps the WAL from being checkpointed).
    public func resetActiveStatements() {
        // Every store call ends here, and a connection caches a hundred statements: the walk
        // is skipped when no step since the last one stopped short of the end.
        guard mayHaveActiveStatements else { return }
        mayHaveActiveStatements = false
        var statement = sqlite3_next_stmt(handle, nil)
        while let current = statement {
            if sqlite3_stmt_busy(current) != 0 { sqlite3_reset(current) }
            statement = sqlite3_next_stmt(handle, current)
        }
    }

    /// Rows changed by the last INSERT, UPDATE or DELETE.
    public var changes: Int { Int(sqlite3_changes(handle)) }

    public var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    /// Quotes a string literal for SQL (`'text'`, doubling inner quotes).
    public static func quoteLiteral(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "''") + "'"
    }

    /// Quotes an identifier for SQL (`"name"`, doubling inner quotes).
    public static func quote(_ identifier: String) -> String {
        "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}

/// The last `SQLiteDatabase.serial` handed out: serials number the process's connections.
private let lastConnectionSerial = Atomic<UInt64>(0)
