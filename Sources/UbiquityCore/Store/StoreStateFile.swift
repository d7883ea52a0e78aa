import Foundation

// A store's merge state as a standalone SQLite file: what a baseline carries. It holds the
// entity and pair tables and the tombstones — never the outbox, history, conflicts or
// quarantine, which are one peer's own business.
extension PersistentStore {
    static let localTables = ["Z_OUTBOX", "Z_SENT", "Z_COLLECTED", "Z_TRANSACTIONS", "Z_CONFLICTS", "Z_QUARANTINE", "Z_KNOWLEDGE"]

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
            for table in Self.localTables { try database.execute("DELETE FROM snapshot.\(table)") }
            try database.execute("DELETE FROM snapshot.Z_META WHERE key NOT IN ('modelHash', 'schemaVersion')")
            return knowledgeCache
        }
    }

    /// Replaces this store's merge state by the state in `path` (a baseline's store file) at
    /// `knowledge`, in one transaction. History, conflicts and quarantine are kept. The caller
    /// makes sure the outbox is empty (its logs are in the container, to be imported again).
    package func adoptStateFile(at path: String, knowledge: KnowledgeVector) throws {
        try locked {
            database.resetActiveStatements()
            try database.execute("ATTACH DATABASE \(SQLiteDatabase.quoteLiteral(path)) AS baseline")
            defer { try? database.execute("DETACH DATABASE baseline") }
            let hash = try database.statement("SELECT value FROM baseline.Z_META WHERE key = 'modelHash'")
            guard try hash.step(), hash.string(0) == model.hash else {
                throw StoreError.validation("the baseline's store was made for another model")
            }
            hash.reset()
            let version = try database.statement("SELECT value FROM baseline.Z_META WHERE key = 'schemaVersion'")
            let baselineVersion = try version.step() ? version.string(0) : nil
            version.reset()
            guard baselineVersion == "1" || baselineVersion == String(StoreSchema.version) else {
                throw StoreError.validation("the baseline's store has schema version \(baselineVersion ?? "none"); this build reads \(StoreSchema.version)")
            }
            try database.transaction {
                if baselineVersion == "1" { try upgradeSchemaFromVersion1(schema: "baseline") }
                let tables = self.tables.values.map(\.quotedName) + pairTables.values.map(\.quotedName) + ["Z_TOMBSTONES", "Z_WRITERS"]
                for table in tables {
                    try database.execute("DELETE FROM main.\(table); INSERT INTO main.\(table) SELECT * FROM baseline.\(table)")
                }
                // The rows now name the baseline's writers.
                forgetSlotWriters()
                try database.execute("DELETE FROM Z_KNOWLEDGE")
                knowledgeCache = KnowledgeVector()
                for (peer, number) in knowledge.entries { try advanceKnowledge(peer: peer, to: number) }
                // As after an import: what this peer stamps next must be later than every value
                // and deletion it now holds, however slow its wall clock (or a rebuilt store's
                // fresh clock) is; else its next edit would lose to what it had already seen.
                for table in ["Z_WRITERS", "Z_TOMBSTONES"] {
                    let newest = try database.statement("SELECT max(stamp) FROM \(table)")
                    if try newest.step(), let stamp = newest.string(0).flatMap(Stamp.init) { clock.observe(stamp) }
                    newest.reset()
                }
                try persistClock()
            }
        }
    }

    /// Every live object.
    package func liveObjectIDs() throws -> Set<GlobalID> {
        try locked {
            var result: Set<GlobalID> = []
            for table in tables.values {
                let count = try database.statement("SELECT count(*) FROM \(table.quotedName) WHERE alive = 1")
                if try count.step() { result.reserveCapacity(result.count + count.int(0)) }
                let statement = try database.statement("SELECT gid FROM \(table.quotedName) WHERE alive = 1")
                while try statement.step() {
                    if let id = statement.string(0).flatMap(GlobalID.init(stored:)) { result.insert(id) }
                }
            }
            return result
        }
    }

    /// Every live object with a fingerprint of its slots (their stamps), to tell what a state swap changed.
    package func liveObjectVersions() throws -> [GlobalID: String] {
        try locked {
            var result: [GlobalID: String] = [:]
            for table in tables.values {
                // Stamps, not writer ids: ids are local, and a swap brings the baseline's.
                let stamps = table.slots.map { "(SELECT stamp FROM Z_WRITERS WHERE id = \(SQLiteDatabase.quote("w_" + $0.name)))" }
                let fingerprint = stamps.isEmpty ? "''" : stamps.map { "coalesce(\($0), '')" }.joined(separator: " || '|' || ")
                let statement = try database.statement("SELECT gid, \(fingerprint) FROM \(table.quotedName) WHERE alive = 1")
                while try statement.step() {
                    if let id = try? GlobalID(statement.string(0) ?? "") { result[id] = statement.string(1) ?? "" }
                }
            }
            return result
        }
    }

    /// Deletes every object, pair and tombstone and forgets all knowledge (content removed).
    package func resetToEmpty() throws {
        try locked {
            try database.transaction {
                let tables = self.tables.values.map(\.quotedName) + pairTables.values.map(\.quotedName)
                    + ["Z_TOMBSTONES", "Z_WRITERS", "Z_KNOWLEDGE", "Z_OUTBOX", "Z_SENT", "Z_COLLECTED"]
                for table in tables { try database.execute("DELETE FROM \(table)") }
                forgetSlotWriters()
                knowledgeCache = KnowledgeVector()
            }
        }
    }

    /// The size of the store file in bytes (for the baseline heuristics).
    public var fileSize: Int64 {
        ((try? FileManager.default.attributesOfItem(atPath: path)[.size]) as? NSNumber)?.int64Value ?? 0
    }
}
