import Foundation

/// A store file's values replaced where they lie, for a bug report that must not carry them:
/// every attribute column of every entity table, the recorded conflicts' values, and the logs
/// the store keeps (outbox, sent logs, an earlier version's outbox). Object IDs, knowledge,
/// stamps and the bookkeeping stay, so the store merges and syncs as it did.
package enum StoreRedaction {
    /// Rewrites the SQLite file at `path` (a copy: it is changed in place). `value` gives each
    /// stored value's stand-in; `unknown` each value of a column the model does not declare,
    /// as SQLite holds it; `log` each kept log's bytes. The file is vacuumed after, so no page
    /// of an old value is left in it.
    package static func redact(databaseAt path: String, model: ObjectModel, value: (AttributeValue) -> AttributeValue,
                               unknown: (SQLiteValue) -> SQLiteValue, log: ([UInt8]) -> [UInt8]) throws {
        let database = try SQLiteDatabase(path: path)
        defer { database.close() }
        // A rollback journal, deleted at commit: no WAL frame keeps an old page.
        try database.execute("PRAGMA journal_mode=DELETE")
        let tables = Set(try database.statement("SELECT name FROM sqlite_master WHERE type = 'table'").rows { $0.string(0) ?? "" })
        try database.transaction {
            for table in tables.sorted() where table.hasPrefix("E_") {
                let declared = model.entity(String(table.dropFirst(2)))
                let columns = try database.statement("PRAGMA table_info(\(SQLiteDatabase.quote(table)))").rows { $0.string(1) ?? "" }
                    .filter { $0.hasPrefix("a_") }
                guard !columns.isEmpty else { continue }
                let rows = try database.statement("SELECT gid, \(columns.map(SQLiteDatabase.quote).joined(separator: ", ")) FROM \(SQLiteDatabase.quote(table))")
                    .rows { row in (row.string(0) ?? "", (0..<columns.count).map { row.value(Int32($0 + 1)) }) }
                let update = "UPDATE \(SQLiteDatabase.quote(table)) SET " + columns.map { "\(SQLiteDatabase.quote($0)) = ?" }.joined(separator: ", ") + " WHERE gid = ?"
                for (gid, stored) in rows {
                    let replaced = zip(columns, stored).map { column, stored in
                        standIn(stored, type: declared?.attribute(String(column.dropFirst(2)))?.type, value: value, unknown: unknown)
                    }
                    try database.run(update, replaced + [.text(gid)])
                }
            }
            if tables.contains("Z_CONFLICTS") {
                let rows = try database.statement("SELECT id, gid, property, winner_value, loser_value FROM Z_CONFLICTS").rows { row in
                    (row.int64(0), row.string(1) ?? "", row.string(2) ?? "", row.value(3), row.value(4))
                }
                for (id, gid, property, winner, loser) in rows {
                    let entity = gid.split(separator: "/", maxSplits: 1).first.map(String.init) ?? ""
                    // Relationship and pair conflicts hold object IDs and "present"/"absent": kept.
                    guard model.entity(entity)?.relationship(property) == nil, ConflictRecord.pair(in: property) == nil else { continue }
                    let type = model.entity(entity)?.attribute(property)?.type
                    try database.run("UPDATE Z_CONFLICTS SET winner_value = ?, loser_value = ? WHERE id = ?", [
                        standIn(winner, type: type, value: value, unknown: unknown), standIn(loser, type: type, value: value, unknown: unknown), .integer(id),
                    ])
                }
            }
            for (table, key) in [("Z_OUTBOX", "number"), ("Z_SENT", "number"), ("Z_OUTBOX_PREVIOUS", "rowid")] where tables.contains(table) {
                let rows = try database.statement("SELECT \(key), bytes FROM \(table)").rows { ($0.int64(0), $0.blob(1) ?? []) }
                for (number, bytes) in rows {
                    let replaced = log(bytes)
                    try database.run("UPDATE \(table) SET bytes = ? WHERE \(key) = ?", [.blob(replaced), .integer(number)])
                    if table == "Z_SENT" { try database.run("UPDATE Z_SENT SET size = ? WHERE number = ?", [.integer(Int64(replaced.count)), .integer(number)]) }
                }
            }
        }
        try database.execute("VACUUM")
    }

    /// A stored value's stand-in: typed by its declaration when it reads as one, else as SQLite holds it.
    private static func standIn(_ stored: SQLiteValue, type: AttributeType?, value: (AttributeValue) -> AttributeValue,
                                unknown: (SQLiteValue) -> SQLiteValue) -> SQLiteValue {
        if stored == .null { return .null }
        if let type, let typed = AttributeValue(sqlite: stored, type: type) { return value(typed).sqliteValue }
        return unknown(stored)
    }
}
