import CSQLite
import Foundation

// A store's merge state as a standalone SQLite file: what a baseline carries. It holds the
// entity and pair tables, the tombstones and the uniqueness merges — never the outbox, history, conflicts or
// quarantine, which are one peer's own business.
extension PersistentStore {
    static let localTables = ["Z_OUTBOX", "Z_OUTBOX_PREVIOUS", "Z_SENT", "Z_TRANSACTIONS", "Z_CONFLICTS", "Z_QUARANTINE", "Z_KNOWLEDGE"]

    /// Writes the merge state into a new SQLite file at `path`; returns the knowledge it holds.
    ///
    /// The file gets every table and index of the store, but rows only of the merge state:
    /// this peer's own tables stay empty and `Z_META` keeps only what identifies the model and
    /// schema. Copying just those rows (rather than `VACUUM INTO` and deleting the rest) never
    /// writes the sent logs' bytes or the history at all, so nothing of them lingers in free
    /// pages, and the file a baseline deflates is as small as the state.
    package func writeStateFile(to path: String) throws -> KnowledgeVector {
        try locked {
            try? FileManager.default.removeItem(atPath: path)
            return try copyState(into: path) {}
        }
    }

    /// The merge state as the bytes of the SQLite file `writeStateFile` would write, built in
    /// memory (an attached `:memory:` database, then `sqlite3_serialize`), and the knowledge it
    /// holds. A baseline roll deflates these bytes straight away: no file is written and read
    /// back, and SQLite's pages go to memory rather than through the file system. The image
    /// takes as much memory as the state, so a caller keeps this to modest stores.
    package func stateFileImage() throws -> (image: SQLiteImage, knowledge: KnowledgeVector) {
        try locked {
            var image: SQLiteImage?
            let knowledge = try copyState(into: ":memory:") {
                var size: sqlite3_int64 = 0
                guard let bytes = sqlite3_serialize(database.handle, "snapshot", &size, 0) else {
                    throw SQLiteError(code: SQLITE_NOMEM, message: "cannot serialize the state (\(size) bytes)", sql: nil)
                }
                image = SQLiteImage(bytes: bytes, count: Int(size))
            }
            guard let image else { throw SQLiteError(code: SQLITE_INTERNAL, message: "the state was never serialized", sql: nil) }
            return (image, knowledge)
        }
    }

    /// Copies the merge state into a new database attached from `target` (a path or `:memory:`)
    /// and runs `finish` while it is still attached. The caller holds the store's lock.
    private func copyState(into target: String, finish: () throws -> Void) throws -> KnowledgeVector {
        do {
            database.resetActiveStatements()
            try database.execute("ATTACH DATABASE \(SQLiteDatabase.quoteLiteral(target)) AS snapshot")
            defer { try? database.execute("DETACH DATABASE snapshot") }
            // A scratch file: the baseline that carries it is made durable, not the file itself.
            try database.execute("PRAGMA snapshot.journal_mode = OFF; PRAGMA snapshot.synchronous = OFF")
            let schema = try database.statement("""
                SELECT type, name, sql FROM main.sqlite_master
                WHERE type IN ('table', 'index') AND sql IS NOT NULL AND name NOT LIKE 'sqlite_%' ORDER BY rowid
                """)
                .rows { (type: $0.string(0) ?? "", name: $0.string(1) ?? "", sql: $0.string(2) ?? "") }
            try database.transaction {
                for object in schema {
                    // SQLite keeps each statement as written, after `CREATE TABLE ` or `CREATE [UNIQUE] INDEX `.
                    guard let prefix = ["CREATE TABLE ", "CREATE INDEX ", "CREATE UNIQUE INDEX "].first(where: object.sql.hasPrefix) else {
                        throw SQLiteError(code: 1, message: "cannot copy the schema of \(object.name): \(object.sql.prefix(40))", sql: nil)
                    }
                    try database.execute(prefix + "snapshot." + object.sql.dropFirst(prefix.count))
                }
                // Same columns and indexes on both sides: SQLite copies these rows as they are stored.
                for object in schema where object.type == "table" && !Self.localTables.contains(object.name) && object.name != "Z_META" {
                    let table = SQLiteDatabase.quote(object.name)
                    try database.execute("INSERT INTO snapshot.\(table) SELECT * FROM main.\(table)")
                }
                let snapshotMetadata = MetadataTable(database: database, schema: "snapshot")
                for key in [StoreMetadataKey.modelHash, .schemaVersion] {
                    if let value = try metadata.value(key) { try snapshotMetadata.set(key, value) }
                }
            }
            try finish()
            return knowledgeCache
        }
    }

    /// Deletes every object, pair, tombstone and uniqueness merge and forgets all knowledge (content removed).
    package func resetToEmpty() throws {
        try locked { try database.transaction { try resetToEmptyLocked() } }
        changeObservers.notify(.reset)
    }

    /// `resetToEmpty`'s transaction: the caller holds the lock and an open transaction, and
    /// tells the change observers once it committed.
    func resetToEmptyLocked() throws {
        let tables = self.tables.values.map(\.quotedName) + pairTables.values.map(\.quotedName) + orderTables.values.map(\.quotedName)
            + ["Z_TOMBSTONES", "Z_WRITERS", "Z_UNIQUE", "Z_MERGED", "Z_KNOWLEDGE", "Z_OUTBOX", "Z_OUTBOX_PREVIOUS", "Z_SENT"]
        for table in tables { try database.execute("DELETE FROM \(table)") }
        // Removed content owes no baseline of what it held.
        try metadata.remove(.migrationKnowledge)
        // Numbers start again at 1 in the new epoch.
        try metadata.remove(.ownNumbersReserved)
        forgetSlotWriters()
        knowledgeCache = KnowledgeVector()
        ownNumbersReserved = 0
    }

    /// The store's size in bytes, for the baseline heuristics: its pages as of its last commit,
    /// whether a checkpoint has copied them into the file yet or they are still in the WAL (the
    /// file's own size depends on when a checkpoint ran, which would make a baseline's timing
    /// depend on it too).
    public var databaseSize: Int64 {
        (try? locked {
            let pages = try database.statement("PRAGMA page_count").rows { $0.int64(0) }.first ?? 0
            let pageSize = try database.statement("PRAGMA page_size").rows { $0.int64(0) }.first ?? 0
            return pages * pageSize
        }) ?? 0
    }
}

/// The bytes of a whole SQLite database file that SQLite allocated (`sqlite3_serialize`);
/// freed when the image goes.
package final class SQLiteImage {
    private let bytes: UnsafeMutablePointer<UInt8>
    package let count: Int

    init(bytes: UnsafeMutablePointer<UInt8>, count: Int) {
        self.bytes = bytes
        self.count = count
    }

    deinit { sqlite3_free(bytes) }

    /// Runs `body` with the image's bytes, valid only during the call.
    package func withUnsafeBytes<T>(_ body: (UnsafeRawBufferPointer) throws -> T) rethrows -> T {
        try body(UnsafeRawBufferPointer(start: bytes, count: count))
    }
}
