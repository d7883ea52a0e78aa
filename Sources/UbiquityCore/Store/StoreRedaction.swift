import Foundation

/// A store file's values replaced where they lie, for a bug report that must not carry them:
/// every attribute column of every entity table, the recorded conflicts' values, and the logs
/// the store keeps (outbox, sent logs, an earlier version's outbox), the constrained values a
/// uniqueness constraint compares, and every object ID where it lies (rows, to-one columns,
/// to-many pairs, positions, tombstones, conflicts, uniqueness losers and winners) as `id`
/// maps it, so references stay whole. Knowledge, stamps and the bookkeeping stay, so the store
/// merges and syncs as it did.
package enum StoreRedaction {
    /// Rewrites the SQLite file at `path` (a copy: it is changed in place). `value` gives each
    /// stored value's stand-in; `unknown` each value of a column the model does not declare,
    /// as SQLite holds it; `log` each kept log's bytes. The file is vacuumed after, so no page
    /// of an old value is left in it.
    package static func redact(databaseAt path: String, model: ObjectModel, value: @escaping (AttributeValue) -> AttributeValue,
                               unknown: @escaping (SQLiteValue) -> SQLiteValue, id: @escaping (String) -> String,
                               log: @escaping ([UInt8]) -> [UInt8]) throws {
        let database = try SQLiteDatabase(path: path)
        defer { database.close() }
        // A rollback journal, deleted at commit: no WAL frame keeps an old page.
        try database.execute("PRAGMA journal_mode=DELETE")
        let tables = Set(try database.statement("SELECT name FROM sqlite_master WHERE type = 'table'").rows { $0.string(0) ?? "" })
        let rewrite = Rewrite(database: database, model: model, tables: tables, value: value, unknown: unknown, id: id, log: log)
        try database.transaction {
            for table in tables.sorted() where table.hasPrefix("E_") { try rewrite.entityTable(table) }
            for table in tables.sorted() where table.hasPrefix("P_") || table.hasPrefix("O_") { try rewrite.pairTable(table) }
            try rewrite.tombstones()
            try rewrite.uniqueness()
            try rewrite.conflicts()
            try rewrite.keptLogs()
        }
        try database.execute("VACUUM")
    }

    /// The rewrite of one store file's tables, each by its own function.
    private struct Rewrite {
        let database: SQLiteDatabase
        let model: ObjectModel
        let tables: Set<String>
        let value: (AttributeValue) -> AttributeValue
        let unknown: (SQLiteValue) -> SQLiteValue
        let id: (String) -> String
        let log: ([UInt8]) -> [UInt8]

        /// An entity's rows: the object ID, every attribute and every to-one target.
        func entityTable(_ table: String) throws {
            let declared = model.entity(String(table.dropFirst(2)))
            let all = try database.statement("PRAGMA table_info(\(SQLiteDatabase.quote(table)))").rows { $0.string(1) ?? "" }
            let columns = all.filter { $0.hasPrefix("a_") }, targets = all.filter { $0.hasPrefix("r_") }
            let read = (["gid"] + columns + targets).map(SQLiteDatabase.quote).joined(separator: ", ")
            let rows = try database.statement("SELECT \(read) FROM \(SQLiteDatabase.quote(table))")
                .rows { row in (row.string(0) ?? "", (0..<(columns.count + targets.count)).map { row.value(Int32($0 + 1)) }) }
            let update = "UPDATE \(SQLiteDatabase.quote(table)) SET "
                + (["gid"] + columns + targets).map { "\(SQLiteDatabase.quote($0)) = ?" }.joined(separator: ", ") + " WHERE gid = ?"
            for (gid, stored) in rows {
                let values = zip(columns, stored.prefix(columns.count)).map { column, stored in
                    standIn(stored, type: declared?.attribute(String(column.dropFirst(2)))?.type, value: value, unknown: unknown)
                }
                let references = stored.suffix(targets.count).map { stored -> SQLiteValue in
                    if case .text(let target) = stored { return .text(id(target)) }
                    return stored
                }
                try database.run(update, [.text(id(gid))] + values + references + [.text(gid)])
            }
        }

        /// To-many pairs and ordered positions: both ends are object IDs.
        func pairTable(_ table: String) throws {
            let quoted = SQLiteDatabase.quote(table)
            let pairs = try database.statement("SELECT source, target FROM \(quoted)").rows { ($0.string(0) ?? "", $0.string(1) ?? "") }
            for (source, target) in pairs {
                try database.run("UPDATE \(quoted) SET source = ?, target = ? WHERE source = ? AND target = ?",
                                 [.text(id(source)), .text(id(target)), .text(source), .text(target)])
            }
        }

        func tombstones() throws {
            guard tables.contains("Z_TOMBSTONES") else { return }
            for gid in Set(try database.statement("SELECT gid FROM Z_TOMBSTONES").rows { $0.string(0) ?? "" }) {
                try database.run("UPDATE Z_TOMBSTONES SET gid = ? WHERE gid = ?", [.text(id(gid)), .text(gid)])
            }
        }

        /// Each loser's winner, and each insert's constrained values (their canonical bytes,
        /// replaced by stand-in bytes: equal keys stay equal).
        func uniqueness() throws {
            if tables.contains("Z_MERGED") {
                let pairs = try database.statement("SELECT loser, winner FROM Z_MERGED").rows { ($0.string(0) ?? "", $0.string(1) ?? "") }
                for (loser, winner) in pairs {
                    try database.run("UPDATE Z_MERGED SET loser = ?, winner = ? WHERE loser = ?", [.text(id(loser)), .text(id(winner)), .text(loser)])
                }
            }
            guard tables.contains("Z_UNIQUE") else { return }
            let rows = try database.statement("SELECT scope, properties, key, gid, peer, number FROM Z_UNIQUE").rows {
                ($0.value(0), $0.value(1), $0.value(2), $0.string(3) ?? "", $0.value(4), $0.value(5))
            }
            for (scope, properties, key, gid, peer, number) in rows {
                try database.run("""
                    UPDATE Z_UNIQUE SET key = ?, gid = ? WHERE scope = ? AND properties = ? AND key = ? AND gid = ? AND peer = ? AND number = ?
                    """, [unknown(key), .text(id(gid)), scope, properties, key, .text(gid), peer, number])
            }
        }

        /// The recorded conflicts: the object, a pair's or position's member, and both values.
        func conflicts() throws {
            guard tables.contains("Z_CONFLICTS") else { return }
            let rows = try database.statement("SELECT id, gid, property, winner_value, loser_value FROM Z_CONFLICTS").rows { row in
                (row.int64(0), row.string(1) ?? "", row.string(2) ?? "", row.value(3), row.value(4))
            }
            for (row, gid, property, winner, loser) in rows {
                let entity = gid.split(separator: "/", maxSplits: 1).first.map(String.init) ?? ""
                var renamed = property, winnerValue = winner, loserValue = loser
                if let (relationship, member) = ConflictRecord.position(in: property) {
                    renamed = "\(relationship)[\(id(member))].position"
                } else if let (relationship, target) = ConflictRecord.pair(in: property) {
                    renamed = "\(relationship)[\(id(target))]"
                } else if model.entity(entity)?.relationship(property) != nil {
                    if case .text(let target) = winner { winnerValue = .text(id(target)) }
                    if case .text(let target) = loser { loserValue = .text(id(target)) }
                } else {
                    let type = model.entity(entity)?.attribute(property)?.type
                    winnerValue = standIn(winner, type: type, value: value, unknown: unknown)
                    loserValue = standIn(loser, type: type, value: value, unknown: unknown)
                }
                try database.run("UPDATE Z_CONFLICTS SET gid = ?, property = ?, winner_value = ?, loser_value = ? WHERE id = ?", [
                    .text(id(gid)), .text(renamed), winnerValue, loserValue, .integer(row),
                ])
            }
        }

        /// The logs the store keeps: outbox, sent logs, an earlier version's outbox.
        func keptLogs() throws {
            for (table, key) in [("Z_OUTBOX", "number"), ("Z_SENT", "number"), ("Z_OUTBOX_PREVIOUS", "rowid")] where tables.contains(table) {
                let rows = try database.statement("SELECT \(key), bytes FROM \(table)").rows { ($0.int64(0), $0.blob(1) ?? []) }
                for (number, bytes) in rows {
                    let replaced = log(bytes)
                    try database.run("UPDATE \(table) SET bytes = ? WHERE \(key) = ?", [.blob(replaced), .integer(number)])
                    if table == "Z_SENT" { try database.run("UPDATE Z_SENT SET size = ? WHERE number = ?", [.integer(Int64(replaced.count)), .integer(number)]) }
                }
            }
        }
    }

    /// A stored value's stand-in: typed by its declaration when it reads as one, else as SQLite holds it.
    private static func standIn(_ stored: SQLiteValue, type: AttributeType?, value: (AttributeValue) -> AttributeValue,
                                unknown: (SQLiteValue) -> SQLiteValue) -> SQLiteValue {
        if stored == .null { return .null }
        if let type, let typed = AttributeValue(sqlite: stored, type: type) { return value(typed).sqliteValue }
        return unknown(stored)
    }
}
