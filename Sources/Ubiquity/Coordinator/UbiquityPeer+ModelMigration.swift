import Foundation
import UbiquityBase
import UbiquityCore
import UbiquitySync

// A store made for another model version is migrated before it is opened (Docs/Models.md,
// "Migration"): the old version's unsent saves go to its folder first, the store is carried
// in one transaction, and the peer then owes the new version a baseline holding everything the
// store had — peers that upgrade later join it, so no save of the old version is lost to them.
extension UbiquityPeer {
    /// Migrates the store at `path` to the configuration's model when it was made for another
    /// one. Returns what was done, `nil` when the store is new or already on the model.
    static func migrateStoreIfNeeded(_ configuration: PeerConfiguration, device: Device, kind: StoreKind, path: String,
                                     logger: UbiquityLogger, activities: ActivityHub) throws -> ModelMigration? {
        guard let (source, plans) = try migrationPlan(configuration, path: path) else { return nil }
        guard configuration.migratesStore else { throw migrationNotEnabled(configuration, source: source, plans: plans) }
        // Told a step at a time: one per version walked through, the store of its size carried whole.
        let reporter = activities.reporter(.modelMigration)
        reporter?.begin(logs: plans.count, bytes: DirectoryEntry.at(path)?.size ?? 0)
        return try reporter.run { try migrate(configuration, device: device, kind: kind, path: path, source: source, plans: plans,
                                              logger: logger, activities: activities, reporter: reporter) }
    }

    /// Carries the store at `path` from `source` by `plans`, after a last sync on the old model.
    private static func migrate(_ configuration: PeerConfiguration, device: Device, kind: StoreKind, path: String, source: ObjectModel,
                                plans: [ModelMigrationPlan], logger: UbiquityLogger, activities: ActivityHub,
                                reporter: ActivityReporter?) throws -> ModelMigration? {
        // Readers beside this owner say the store is being migrated rather than read it meanwhile.
        try StoreMarker.mark(path, .migration)
        defer { StoreMarker.clear(path) }
        if kind == .account, device.identityToken != nil {
            // The old version's peers get this store's last saves, and the store takes theirs
            // into the new version: one sync on the old model first (best effort: offline, the
            // unsent saves wait in the store for the old folder).
            var old = configuration
            old.model = source
            old.migratesStore = false
            do {
                let peer = try UbiquityPeer(configuration: old, device: device, deviceLock: nil, kind: kind, activities: activities)
                defer { peer.close() }
                _ = try peer.sync(reportingImportFailure: true)
            } catch {
                logger.log(.warning, .setupAssistant, "migrateStore", "the last sync on model '\(source.name)' before the migration failed: \(error)")
            }
        }
        // One transaction per step: a crash between two leaves the store on a version of the
        // walk, which the next open carries on from.
        var steps: [ModelMigration] = []
        for plan in plans {
            let step = try PersistentStore.migrate(atPath: path, plan: plan, previousVersion: source.hash)
            if plans.count > 1 { logger.log(.info, .setupAssistant, "migrateStore", step.description) }
            steps.append(step)
            reporter?.advance()
        }
        guard let migration = ModelMigration(walk: steps) else { return nil }
        logger.notice(.setupAssistant, "migrateStore", migration.description)
        return migration
    }

    /// The migration the store at `path` needs to be opened with the configuration's model:
    /// `nil` when the store is new or already on it; else the store's model and each step, one
    /// per version walked through when the configuration has `modelVersions`. Thrown when the
    /// store's model is unknown or a change cannot be inferred.
    static func migrationPlan(_ configuration: PeerConfiguration, path: String) throws -> (source: ObjectModel, plans: [ModelMigrationPlan])? {
        let model = configuration.model
        guard let stored = PersistentStore.storedModelHash(atPath: path), stored != model.hash else { return nil }
        if let versions = configuration.modelVersions {
            do throws(ModelWalkError) {
                let plans = try versions.steps(from: stored, to: model)
                return plans.first.map { ($0.source, plans) }
            } catch { throw PeerError.migrationWalkRefused(error) }
        }
        let known = PersistentStore.storedModel(atPath: path).flatMap { $0.hash == stored ? $0 : nil }
            ?? configuration.previousModels.first { $0.hash == stored }
        guard let source = known else {
            throw PeerError.storeNeedsMigration(.storeModelUnknown(path: path, storedHash: stored, model: model.name, hash: model.hash))
        }
        do throws(ModelMigrationError) { return (source, [try ModelMigrationPlan(from: source, to: model)]) } catch { throw PeerError.migrationRefused(error) }
    }

    /// The error of a store that needs `plans` and is not migrated (the configuration does not
    /// migrate, or the peer only reads): it says how to migrate it.
    static func migrationNotEnabled(_ configuration: PeerConfiguration, source: ObjectModel, plans: [ModelMigrationPlan]) -> PeerError {
        let model = configuration.model
        let changes = plans.reduce(0) { $0 + $1.diff.changes.filter { $0.mapping != .noMigration }.count }
        return .storeNeedsMigration(.migrationNotEnabled(source: source.name, storedHash: source.hash, model: model.name, hash: model.hash,
                                                         changes: changes))
    }

    /// While the new version's baselines lack what the store held when it was migrated: join
    /// and import what the new version has, then roll a baseline. Until then this peer writes
    /// no log of the new version (a peer of the new version could not apply it without the
    /// baseline). Returns whether the debt is paid.
    func payMigrationDebt(_ location: ContainerLocation, summary: inout SyncSummary) throws -> Bool {
        guard let owed = try store.migrationKnowledgeOwed() else { return true }
        let baseliner = makeBaseliner(location)
        if baseliner.catalog().view.dominates(owed) {
            try store.clearMigrationKnowledgeOwed()
            return true
        }
        let decision = try syncLock.withLock { try baseliner.rollIfNeeded(policy: configuration.baselinePolicy ?? .apple, force: true) }
        summary.baseline = decision
        guard baseliner.catalog().view.dominates(owed) else {
            logger.log(.warning, .baseline, "migrateStore", "the migrated state is not in a baseline of this model yet (\(decision.reason)); this peer's new saves wait")
            return false
        }
        try store.clearMigrationKnowledgeOwed()
        logger.log(.info, .baseline, "migrateStore", "the migrated state is in a baseline of model \(store.model.hash)")
        return true
    }

    /// Writes saves of earlier model versions, made before the store was migrated, into those
    /// versions' folders. Returns how many were written.
    func exportPreviousVersions() throws -> Int {
        guard let location else { return 0 }
        var written = 0
        for (model, entry) in try store.previousVersionOutbox() {
            var folder = ContainerLocation(cloud: location.cloud, identityToken: location.identityToken, containerIdentifier: location.containerIdentifier,
                                           contentURL: location.contentURL, contentName: location.contentName, modelHash: model)
            // The content's encryption covers every version's folder: never plaintext into it.
            folder.sealing = location.sealing
            do {
                // Its external values first, into the folder every model version shares.
                try Exporter(store: store, location: folder, logger: logger).uploadExternalData(of: entry.bytes)
                try folder.write(entry.bytes, to: folder.logPath(of: peerID, entry.fileName), modificationTime: store.now)
            } catch let error as FileError {
                throw SyncError.containerUnwritable(path: error.path, reason: error.message)
            } catch let error as ExternalDataError {
                throw SyncError.containerUnwritable(path: folder.externalDataDirectory, reason: error.description)
            }
            try store.markPreviousVersionSent(model: model, number: entry.number)
            written += 1
        }
        return written
    }
}
