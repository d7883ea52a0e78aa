import Foundation

/// The keys of `Z_META`: one row per fact the store keeps about itself.
enum StoreMetadataKey: String {
    /// The model and peer the store was made for, and its schema version: checked on open.
    case modelHash, peerID, schemaVersion
    /// The last stamp issued, so the clock never runs back across launches.
    case lastStamp
    /// The content removal the store is in (`ContentRemoval`); absent: it knows none.
    case contentEpoch, contentEpochGeneration, contentEpochDate, contentEpochHistory
    /// "1" once an account store finished its first import: the fallback is no longer needed.
    case initialImportCompleted
    /// The model the store was made for, as an XML plist model file: what a migration starts from.
    case model
    /// The model hash the store was last migrated from.
    case migratedFrom
    /// The knowledge the store had when it was migrated, kept until the new version's
    /// baselines hold it (then removed).
    case migrationKnowledge
    /// What the last import waited for: one line per log whose external data has not arrived
    /// (`<peer> <number> <sha256>` and, for a damaged file, its reason), for `status` and `doctor`.
    case externalDataWaits
    /// The highest own transaction number known to be taken in the container, when it is above
    /// what the store applied of its own (restored from a backup): saves are numbered above it.
    case ownNumbersReserved
    /// What the owner's last round of sync found (`SyncState` as JSON text), for `status`:
    /// a reader in another process answers "am I synced?" as the app does.
    case syncState
}

/// `Z_META`: the facts a store keeps about itself, one text value per `StoreMetadataKey`.
/// Its callers hold the store's lock.
struct MetadataTable {
    let database: SQLiteDatabase
    /// The attached database the table is in: "main", or a baseline or snapshot being joined or written.
    var schema = "main"

    func value(_ key: StoreMetadataKey) throws -> String? {
        // The store's own table, outside a transaction that could still roll back: what was
        // read there stays current until this connection changes a row (`totalChanges`).
        let cached = schema == "main" && !database.isInTransaction
        if cached, let known = database.metadataCache[key.rawValue], known.changes == database.totalChanges { return known.value }
        let statement = try database.statement("SELECT value FROM \(schema).Z_META WHERE key = ?")
        // Reset at once: a statement left on its row keeps a read lock, and an attached
        // baseline could not be detached.
        defer { statement.reset() }
        try statement.bind(key.rawValue, at: 1)
        let value = try statement.step() ? statement.string(0) : nil
        if cached { database.metadataCache[key.rawValue] = (database.totalChanges, value) }
        return value
    }

    func set(_ key: StoreMetadataKey, _ value: String) throws {
        try database.run("INSERT OR REPLACE INTO \(schema).Z_META (key, value) VALUES (?, ?)", [.text(key.rawValue), .text(value)])
    }

    /// `set`, unless the key already holds `value` (no write, no transaction).
    func update(_ key: StoreMetadataKey, _ value: String) throws {
        if try self.value(key) != value { try set(key, value) }
    }

    func remove(_ key: StoreMetadataKey) throws {
        try database.run("DELETE FROM \(schema).Z_META WHERE key = ?", [.text(key.rawValue)])
    }

    /// Writes `expected` when the key has no value yet; a different value throws `mismatch(stored)`.
    func checkOrWrite(_ key: StoreMetadataKey, _ expected: String, mismatch: (String) -> StoreError) throws {
        if let stored = try value(key) {
            guard stored == expected else { throw mismatch(stored) }
        } else {
            try set(key, expected)
        }
    }

    /// Removes every key but `kept` (a state file keeps only what identifies its model and schema).
    func removeAll(except kept: [StoreMetadataKey]) throws {
        let list = kept.map { SQLiteDatabase.quoteLiteral($0.rawValue) }.joined(separator: ", ")
        try database.execute("DELETE FROM \(schema).Z_META WHERE key NOT IN (\(list))")
    }

    /// The value of `key` in the store file at `path`, read without opening it as a store (no
    /// schema is created, nothing is written); `nil` when there is no file or no value.
    static func value(_ key: StoreMetadataKey, inFileAt path: String) -> String? {
        guard FileManager.default.fileExists(atPath: path),
              let database = try? SQLiteDatabase(path: path, readOnly: true) else { return nil }
        return try? MetadataTable(database: database).value(key)
    }
}
