import Foundation

// A store's merge state as a standalone SQLite file: what a baseline carries. It holds the
// entity and pair tables and the tombstones — never the outbox, history, conflicts or
// quarantine, which are one peer's own business.
extension PersistentStore {
    static let localTables = ["Z_OUTBOX", "Z_OUTBOX_PREVIOUS", "Z_SENT", "Z_TRANSACTIONS", "Z_CONFLICTS", "Z_QUARANTINE", "Z_KNOWLEDGE"]

    /// Writes the merge state into a new SQLite file at `path`; returns the knowledge it holds.
    package func writeStateFile(to path: String) throws -> KnowledgeVector {
        try locked {
            try? FileManager.default.removeItem(atPath: path)
            database.resetActiveStatements()
            try database.execute("VACUUM INTO \(SQLiteDatabase.quoteLiteral(path))")
            // Strip the copy through this connection: a second connection would wait on locks
            // this one may still hold on the new file.
            try database.execute("ATTACH DATABASE \(SQLiteDatabase.quoteLiteral(path)) AS snapshot")
            defer { try? database.execute("DETACH DATABASE snapshot") }
            // Deleted rows would otherwise stay readable in the file's free pages: this peer's
            // outbox, history, conflicts and bookkeeping would travel in every baseline it rolls
            // (and make two rolls of the same state differ byte for byte).
            try database.execute("PRAGMA snapshot.secure_delete = ON")
            for table in Self.localTables { try database.execute("DELETE FROM snapshot.\(table)") }
            try MetadataTable(database: database, schema: "snapshot").removeAll(except: [.modelHash, .schemaVersion])
            return knowledgeCache
        }
    }

    /// Deletes every object, pair and tombstone and forgets all knowledge (content removed).
    package func resetToEmpty() throws {
        try locked {
            try database.transaction {
                let tables = self.tables.values.map(\.quotedName) + pairTables.values.map(\.quotedName) + orderTables.values.map(\.quotedName)
                    + ["Z_TOMBSTONES", "Z_WRITERS", "Z_KNOWLEDGE", "Z_OUTBOX", "Z_OUTBOX_PREVIOUS", "Z_SENT"]
                for table in tables { try database.execute("DELETE FROM \(table)") }
                // Removed content owes no baseline of what it held.
                try metadata.remove(.migrationKnowledge)
                forgetSlotWriters()
                knowledgeCache = KnowledgeVector()
            }
        }
        changeObservers.notify(.reset)
    }

    /// The size of the store file in bytes (for the baseline heuristics).
    public var fileSize: Int64 {
        ((try? FileManager.default.attributesOfItem(atPath: path)[.size]) as? NSNumber)?.int64Value ?? 0
    }
}
