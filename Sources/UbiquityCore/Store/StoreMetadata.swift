import Foundation

/// The keys of `Z_META`: one row per fact the store keeps about itself.
enum StoreMetadataKey: String {
    /// The model and peer the store was made for, and its schema version: checked on open.
    case modelHash, peerID, schemaVersion
    /// The last stamp issued, so the clock never runs back across launches.
    case lastStamp
    /// The content removal the store is in (`ContentRemoval`); absent: it knows none.
    case contentEpoch, contentEpochGeneration, contentEpochDate
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
}

extension PersistentStore {
    /// The caller holds the lock.
    func meta(_ key: StoreMetadataKey) throws -> String? {
        let statement = try database.statement("SELECT value FROM Z_META WHERE key = ?")
        try statement.bind(key.rawValue, at: 1)
        return try statement.step() ? statement.string(0) : nil
    }

    /// The caller holds the lock.
    func setMeta(_ key: StoreMetadataKey, _ value: String) throws {
        try database.run("INSERT OR REPLACE INTO Z_META (key, value) VALUES (?, ?)", [.text(key.rawValue), .text(value)])
    }

    func checkOrWriteMeta(_ key: StoreMetadataKey, _ expected: String, mismatch: (String) -> StoreError) throws {
        if let stored = try meta(key) {
            guard stored == expected else { throw mismatch(stored) }
        } else {
            try setMeta(key, expected)
        }
    }

    // MARK: Content removal

    /// The content epoch this store is in; `nil` when the content was never removed.
    package func contentEpoch() throws -> String? { try locked { try meta(.contentEpoch) } }

    /// The removal this store is in (its epoch and date); `nil` when it knows none.
    package func contentRemoval() throws -> ContentRemoval? {
        try locked {
            guard let epoch = try meta(.contentEpoch) else { return nil }
            return ContentRemoval(epoch: epoch, generation: try meta(.contentEpochGeneration).flatMap(Int64.init) ?? 0,
                                  date: try meta(.contentEpochDate).flatMap(Double.init) ?? 0)
        }
    }

    package func setContentEpoch(_ removal: ContentRemoval) throws {
        try locked {
            try setMeta(.contentEpoch, removal.epoch)
            try setMeta(.contentEpochGeneration, String(removal.generation))
            try setMeta(.contentEpochDate, String(removal.date))
        }
    }

    // MARK: Initial import

    package func markInitialImportCompleted() throws { try locked { try setMeta(.initialImportCompleted, "1") } }

    package func initialImportCompleted() throws -> Bool { try locked { try meta(.initialImportCompleted) == "1" } }

    /// Whether the store file at `path` finished its initial import, read without opening it
    /// as a store (no schema is created, nothing is written); `false` when there is no file.
    package static func initialImportCompleted(atPath path: String) -> Bool {
        guard FileManager.default.fileExists(atPath: path),
              let database = try? SQLiteDatabase(path: path, readOnly: true),
              let statement = try? database.statement("SELECT value FROM Z_META WHERE key = ?"),
              (try? statement.bind(StoreMetadataKey.initialImportCompleted.rawValue, at: 1)) != nil else { return false }
        return (try? statement.step()) == true && statement.string(0) == "1"
    }
}
