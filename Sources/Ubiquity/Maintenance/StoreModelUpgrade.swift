import UbiquityCore

/// What moving a device's store to another model version did (`ubiq model migrate`).
public struct StoreModelUpgradeReport: Sendable {
    /// The migration done on open; `nil` when the store was already on the model.
    public let migration: ModelMigration?
    /// The sync after it: the baseline of the new version is rolled there.
    public let sync: SyncSummary
    /// Whether the migrated state is still not in a baseline of the new version (its new saves wait).
    public let baselineOwed: Bool
}

/// Moving a device's store to another model version by lightweight migration.
public enum StoreModelUpgrade {
    /// Opens the device with `configuration` (its `model` the one to migrate to, `previousModels`
    /// naming the old one when the store does not record it) letting the store migrate, then
    /// syncs once so the migrated state goes into a baseline of the new version.
    public static func run(configuration: PeerConfiguration) throws -> StoreModelUpgradeReport {
        var configuration = configuration
        configuration.migratesStore = true
        return try UbiquityPeer.withPeer(configuration: configuration) { peer in
            let summary = try peer.sync()
            return StoreModelUpgradeReport(migration: peer.migration, sync: summary, baselineOwed: try peer.store.migrationKnowledgeOwed() != nil)
        }
    }
}
