import Foundation

// The facts of `Z_META` the rest of the library asks about, through the store's lock
// (`MetadataTable` holds the SQL).
extension PersistentStore {
    /// The caller holds the lock.
    func meta(_ key: StoreMetadataKey) throws -> String? { try metadata.value(key) }

    /// The caller holds the lock.
    func setMeta(_ key: StoreMetadataKey, _ value: String) throws { try metadata.set(key, value) }

    // MARK: Content removal

    /// The content epoch this store is in; `nil` when the content was never removed.
    package func contentEpoch() throws -> String? { try locked { try metadata.value(.contentEpoch) } }

    /// The removal this store is in (its epoch and date); `nil` when it knows none.
    package func contentRemoval() throws -> ContentRemoval? {
        try locked {
            guard let epoch = try metadata.value(.contentEpoch) else { return nil }
            return ContentRemoval(epoch: epoch, generation: try metadata.value(.contentEpochGeneration).flatMap(Int64.init) ?? 0,
                                  date: try metadata.value(.contentEpochDate).flatMap(Double.init) ?? 0,
                                  history: try metadata.value(.contentEpochHistory).flatMap(KnowledgeVector.init(string:)) ?? KnowledgeVector())
        }
    }

    package func setContentEpoch(_ removal: ContentRemoval) throws {
        try locked {
            try metadata.set(.contentEpoch, removal.epoch)
            try metadata.set(.contentEpochGeneration, String(removal.generation))
            try metadata.set(.contentEpochDate, String(removal.date))
            try metadata.set(.contentEpochHistory, removal.history.description)
        }
    }

    // MARK: Initial import

    package func markInitialImportCompleted() throws { try locked { try metadata.set(.initialImportCompleted, "1") } }

    package func initialImportCompleted() throws -> Bool { try locked { try metadata.value(.initialImportCompleted) == "1" } }

    /// Whether the store file at `path` finished its initial import, read without opening it
    /// as a store (no schema is created, nothing is written); `false` when there is no file.
    package static func initialImportCompleted(atPath path: String) -> Bool {
        MetadataTable.value(.initialImportCompleted, inFileAt: path) == "1"
    }
}
