import CSQLite
import Foundation

// The common update of an import in one statement: an object alive here whose touched slots
// were last written by transactions the incoming one had seen and stamped later, with a value
// that differs. The row is then read by SQLite only once (the `SELECT` before each `UPDATE`
// cost it a second search of the table and Swift a row array). Two SQL functions decide it
// from the row as SQLite holds it: `ubiq_wins(w…)` and `ubiq_changes(old, new, …)`. Anything
// else — a conflict, a lost slot, a value equal to the one held, a dead or missing row —
// changes no row, and the record takes the merge's general path, which gives the same result.
extension MergeEngine {
    /// Applies `record` (an update) with one `UPDATE` when it is the common case; `false`
    /// when nothing was written and the general path must apply it.
    func updateInPlace(_ record: ChangeRecord, values incoming: IncomingValues, table: EntityTable, writer: TransactionWriter) throws -> Bool {
        guard judge.allowsInPlaceUpdates, judge.isJudging(writer), record.positions.isEmpty else { return false }
        for change in record.relationships.values { if case .toMany = change { return false } }
        // The slots in name order from a mask (no array of them, no sort), as `touchedSlots` lists them.
        guard let touched = touchedMask(of: record, values: incoming, in: table), touched != 0 else { return false }
        // The columns in `incomingValues`' order, into arrays the table keeps (three arrays per
        // record cost their allocations); the values are bound in a second pass of the same order.
        let key = table.statements.inPlaceKey
        key.columns.removeAll(keepingCapacity: true)
        key.writers.removeAll(keepingCapacity: true)
        for index in table.slotsByName where touched & (1 << UInt64(index)) != 0 {
            let layout = table.slotLayouts[index]
            for (attribute, column) in layout.attributes where incoming.value(attribute, column: column) != nil { key.columns.append(column) }
            if let (name, column) = layout.toOne, case .toOne? = record.relationships[name] { key.columns.append(column) }
            key.writers.append(layout.writer)
        }
        let count = Int32(key.columns.count)
        guard count > 0 else { return false }
        let statement = try table.statements.inPlaceUpdate(key.columns, writers: key.writers, of: table, in: database)
        var parameter: Int32 = 1
        for index in table.slotsByName where touched & (1 << UInt64(index)) != 0 {
            let layout = table.slotLayouts[index]
            for (attribute, column) in layout.attributes {
                guard let value = incoming.value(attribute, column: column) else { continue }
                try statement.bind(attribute: value, at: parameter)
                parameter += 1
            }
            if let (name, _) = layout.toOne, case let .toOne(target)? = record.relationships[name] {
                try statement.bind(target?.description, at: parameter)
                parameter += 1
            }
        }
        try statement.bind(writer.id, at: count + 1)
        try statement.withText(record.id.description, boundAt: count + 2) { try statement.run() }
        return database.changes == 1
    }
}

/// What `ubiq_wins` needs: the transaction being applied and the writers it simply wins over.
/// One per store connection, told of each log before its records; used under the store's lock.
final class InPlaceUpdateJudge {
    /// Unowned: the connection keeps this judge, and the writers' table keeps the connection.
    private unowned let slotWriters: SlotWriterTable
    private var writer: TransactionWriter?
    /// Per writer id of the log being applied: whether it wins over that writer's slots
    /// without a conflict.
    private var decisions: [Int64: Bool] = [:]
    private var lastDecision: (id: Int64, wins: Bool)?
    /// `false` sends every update down the general path (the tests compare the two).
    var allowsInPlaceUpdates = true

    init(slotWriters: SlotWriterTable) { self.slotWriters = slotWriters }

    /// Whether `writer` is the transaction this judge was told of (ids are one per transaction).
    func isJudging(_ writer: TransactionWriter) -> Bool { self.writer?.id == writer.id }

    func begin(_ writer: TransactionWriter) {
        self.writer = writer
        decisions.removeAll(keepingCapacity: true)
        lastDecision = nil
    }

    /// Whether the transaction being applied takes a slot last written by writer `id` with no
    /// conflict: its stamp is larger and it had seen that write (or wrote it). A writer not in
    /// the cache is left to the general path, which reads it (no query from inside a statement).
    func winsSimply(over id: Int64) -> Bool {
        // The last answer first: an import's rows were mostly last written by one transaction,
        // and the dictionary hashed its id for every row.
        if let last = lastDecision, last.id == id { return last.wins }
        if let known = decisions[id] {
            lastDecision = (id, known)
            return known
        }
        guard let writer, let current = slotWriters.cachedWriter(id: id) else { return false }
        let wins = writer.stamp > current.stamp && !writer.isConcurrent(withWriteOf: current.stamp.peerID, number: current.number)
        decisions[id] = wins
        lastDecision = (id, wins)
        return wins
    }

    /// Registers `ubiq_wins` and `ubiq_changes` on `database`, which keeps this judge alive.
    func register(on database: SQLiteDatabase) {
        let flags = SQLITE_UTF8 | SQLITE_DIRECTONLY
        let release: @convention(c) (UnsafeMutableRawPointer?) -> Void = { pointer in
            if let pointer { Unmanaged<InPlaceUpdateJudge>.fromOpaque(pointer).release() }
        }
        // ubiq_wins(w, …): 1 when every slot writer is NULL (never written) or simply beaten.
        sqlite3_create_function_v2(database.handle, "ubiq_wins", -1, flags, Unmanaged.passRetained(self).toOpaque(), { context, count, arguments in
            let judge = Unmanaged<InPlaceUpdateJudge>.fromOpaque(sqlite3_user_data(context)).takeUnretainedValue()
            var wins: Int32 = 1
            for index in 0..<Int(count) {
                let value = arguments![index]
                switch sqlite3_value_type(value) {
                case SQLITE_NULL: continue
                case SQLITE_INTEGER where judge.winsSimply(over: sqlite3_value_int64(value)): continue
                default: wins = 0
                }
                break
            }
            sqlite3_result_int(context, wins)
        }, nil, nil, release)
        // ubiq_changes(old, new, …): 1 when some new value differs from the old one and every
        // other is the same bytes, by the merge's own comparison of `SQLiteValue`s.
        sqlite3_create_function_v2(database.handle, "ubiq_changes", -1, flags, Unmanaged.passRetained(self).toOpaque(), { context, count, arguments in
            var differs = false
            var index = 0
            while index + 1 < Int(count) {
                switch ValueComparison(arguments![index], arguments![index + 1]) {
                case .same: break
                case .different: differs = true
                case .unsure:
                    sqlite3_result_int(context, 0)
                    return
                }
                index += 2
            }
            sqlite3_result_int(context, differs ? 1 : 0)
        }, nil, nil, release)
    }
}

/// How a value SQLite holds compares with the one an update binds, in the terms of the merge's
/// `SQLiteValue` `!=` (which writes a column only when it differs): `same` only when writing
/// it would store the same bytes; `unsure` where the two disagree (0.0 and -0.0). Text
/// compares by its bytes in both, the exact scalars.
private enum ValueComparison {
    case same, different, unsure

    init(_ old: OpaquePointer?, _ new: OpaquePointer?) {
        let type = sqlite3_value_type(old)
        guard type == sqlite3_value_type(new) else {
            self = .different
            return
        }
        switch type {
        case SQLITE_NULL:
            self = .same
        case SQLITE_INTEGER:
            self = sqlite3_value_int64(old) == sqlite3_value_int64(new) ? .same : .different
        case SQLITE_FLOAT:
            let (a, b) = (sqlite3_value_double(old), sqlite3_value_double(new))
            self = a.bitPattern == b.bitPattern ? .same : a != b ? .different : .unsure
        case SQLITE_TEXT:
            let a = Self.bytes(sqlite3_value_text(old), sqlite3_value_bytes(old))
            let b = Self.bytes(sqlite3_value_text(new), sqlite3_value_bytes(new))
            // Text is its exact bytes (Docs/SyncSemantics.md, exact scalars): an é precomposed
            // and decomposed are different values, though Swift's `String` calls them equal.
            self = Self.equal(a, b) ? .same : .different
        default:
            let a = Self.bytes(sqlite3_value_blob(old).map { $0.assumingMemoryBound(to: UInt8.self) }, sqlite3_value_bytes(old))
            let b = Self.bytes(sqlite3_value_blob(new).map { $0.assumingMemoryBound(to: UInt8.self) }, sqlite3_value_bytes(new))
            self = Self.equal(a, b) ? .same : .different
        }
    }

    /// The same bytes (`memcmp`: every in-place update compares the values it replaces).
    private static func equal(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
        guard a.count == b.count else { return false }
        guard let x = a.baseAddress, let y = b.baseAddress else { return true }
        return memcmp(x, y, a.count) == 0
    }

    private static func bytes(_ start: UnsafePointer<UInt8>?, _ count: Int32) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(start: count > 0 ? start : nil, count: count > 0 ? Int(count) : 0)
    }
}
