import UbiquityBase
import UbiquityCore
import UbiquitySync

// One round of sync as a list of named steps, each returning what it did; `sync` puts their
// results together into the round's `SyncSummary`.
extension UbiquityPeer {
    /// One round of sync: notice a content removal, export pending logs, start from the
    /// baseline if this store fell behind it, import, then roll a baseline and collect garbage
    /// as the policy says. An export that fails is reported in `exportError`; an import step
    /// (joining baselines, importing logs) that fails throws — or, with
    /// `reportingImportFailure`, is reported in `importError` and ends the round there.
    public func sync(importBatchSize: Int = .max, reportingImportFailure: Bool = false) throws -> SyncSummary {
        try refuseUnlessWritable("sync")
        var summary = SyncSummary()
        guard let location else {
            summary.signedOut = true
            summary.knowledge = store.knowledge
            return summary
        }
        summary.keyRecordAltered = try checkSealing(location)
        (summary.contentRemoved, summary.carried) = try followContentRemoval()
        var scan = try listAfterReservingOwnNumbers(location)
        let export = try exportRound(location)
        (summary.exported, summary.repaired, summary.exportError) = (export.exported, export.repaired, export.error)
        let baseliner = makeBaseliner(location)
        let imported: ImportRound
        let importStart = SyncMetrics.now(), initialImport = try !store.initialImportCompleted()
        // What this peer wrote since the listing (its exports, repairs) is seen as a new listing would see it.
        scan.relist(peer: store.peerID)
        do {
            let join = try joinBaselines(baseliner, scan: scan)
            summary.adoptedBaseline = join.adoptedBaseline
            imported = try importLogs(after: consume join, batchSize: importBatchSize, scan: scan)
            if initialImport { metrics.record(.initialImport, since: importStart) }
        } catch where reportingImportFailure {
            summary.importError = SyncFailure(error)
            summary.outboxPending = (try? store.pendingOutbox().count) ?? 0
            summary.knowledge = store.knowledge
            return summary
        }
        summary.imported = imported.report
        try tellConflicts(after: imported.conflictsBefore)
        var roundCatalog = imported.catalog
        if try store.migrationKnowledgeOwed() != nil, summary.exportError == nil {
            roundCatalog = nil // paying the debt may roll a baseline
            if try payMigrationDebt(location, summary: &summary) {
                do { summary.exported += try exportPending() } catch let error as SyncError { summary.exportError = error }
            }
        }
        // A store that caught up with everything visible has done its initial import: the
        // coordinator opens it directly from now on.
        if summary.imported.waiting == 0, try !store.initialImportCompleted() { try store.markInitialImportCompleted() }
        if let policy = configuration.baselinePolicy, summary.exportError == nil {
            let upkeep = maintainBaselines(location, baseliner, policy: policy, scan: &scan, catalog: roundCatalog)
            (summary.baseline, summary.garbage, summary.externalDataGarbage) = (upkeep.baseline, upkeep.garbage, upkeep.externalDataGarbage)
        }
        summary.outboxPending = try store.pendingOutbox().count
        summary.knowledge = store.knowledge
        return summary
    }

    /// Refuses a round without the key (saves wait in the outbox, nothing is quarantined);
    /// answers an altered key record while this device holds the key.
    private func checkSealing(_ location: ContainerLocation) throws -> Advice? {
        if case .locked = location.sealing.refresh() { throw location.sealing.lockedError }
        guard let alteration = location.sealing.alteration, !isReadOnly else { return nil }
        return answerAlteredKeyRecord(location, alteration)
    }

    /// Whether another peer removed the content, and how many objects this store carried into
    /// the winner's content when both removed it at once. Posted from here, so a removal
    /// noticed by any sync (the coordinator's, or its catch-up at launch) reaches the app as a
    /// transition.
    private func followContentRemoval() throws -> (removed: Bool, carried: Int?) {
        switch try contentEpochChange() {
        case .none:
            return (false, nil)
        case .removed:
            events.post(.storeWillReset)
            try resetForRemovedContent()
            events.post(.storeDidReset)
            return (true, nil)
        case let .removedConcurrently(winner):
            events.post(.storeWillReset)
            let carried = try carryIntoConcurrentRemoval(winner)
            events.post(.storeDidReset)
            return (true, carried)
        }
    }

    /// The round's one listing, made after its look for this peer's own numbers: a store behind
    /// its own transactions (restored from a backup) numbers nothing, and sends nothing, under a
    /// number the container holds. Done before anything is written.
    private func listAfterReservingOwnNumbers(_ location: ContainerLocation) throws -> ContainerScan {
        try syncLock.withLock {
            let look = lookForOwnNumbers(location)
            let scan = ContainerScan(location: location)
            _ = try reserveOwnNumbers(location, after: look, scan: scan)
            return scan
        }
    }

    /// What a round's export step did; `error` ends the round's baseline upkeep.
    struct ExportRound {
        var exported = 0
        var repaired: [Int64] = []
        var error: SyncError?
    }

    /// Exports the saves of earlier model versions, then this version's, and writes again any
    /// own log or external data file found damaged or missing.
    private func exportRound(_ location: ContainerLocation) throws -> ExportRound {
        var round = ExportRound()
        do {
            // Saves of the old version (made before a migration) wait for its folder alone: the
            // new version's export does not wait for them.
            round.exported = try exportPreviousVersions()
        } catch let error as SyncError {
            logger.log(.warning, .exporter, "exportLog:", "saves of an earlier model version wait: \(error)")
        }
        do {
            // A link or file in place of this peer's own folder would refuse every write for ever.
            _ = syncLock.withLock { Exporter(store: store, location: location, logger: logger).reclaimOwnFolder() }
            round.exported += try exportPending()
            round.repaired = try syncLock.withLock { try Exporter(store: store, location: location, logger: logger).repairSentLogs() }
            _ = try syncLock.withLock { try Exporter(store: store, location: location, logger: logger).repairExternalData() }
        } catch let error as SyncError {
            round.error = error
        }
        return round
    }

    /// The baselines a round saw and what joining them brought.
    struct BaselineJoin {
        /// The baselines as this round saw them, for as long as it writes none into their
        /// folder nor sets one aside.
        var catalog: BaselineCatalog
        var changes: ObjectChanges
        var adoptedBaseline: String?
        /// Whether a baseline was tried: a join may have set it aside, so the catalog is stale.
        var tried: Bool
    }

    /// Joins the baselines this store needs (it lacks something they hold and cannot import
    /// it): a join never takes away what the store holds, so its unsent saves need not leave first.
    private func joinBaselines(_ baseliner: Baseliner, scan: ContainerScan) throws -> BaselineJoin {
        let (catalog, joined) = try syncLock.withLock {
            let catalog = baseliner.catalog()
            return (catalog, try baseliner.joinNeeded(catalog, scan: scan))
        }
        let join = BaselineJoin(catalog: catalog, changes: joined.changes, adoptedBaseline: joined.joined.first?.author, tried: joined.tried)
        if join.adoptedBaseline != nil, !join.changes.isEmpty { events.post(.didImport(join.changes)) }
        return join
    }

    /// What a round's import step brought, the baseline's changes included.
    struct ImportRound {
        var report: ImportReport
        /// The catalog the receipt was written from, for the roll and the collection.
        var catalog: BaselineCatalog?
        /// The last conflict recorded before the import: those after it are the round's.
        var conflictsBefore: Int64
    }

    /// Imports the logs after a join; what the baseline brought is part of what this sync
    /// changed (sync and watch list it).
    private func importLogs(after join: consuming BaselineJoin, batchSize: Int, scan: ContainerScan) throws -> ImportRound {
        let conflictsBefore = try store.lastConflictID()
        let (report, catalog) = try importAvailable(batchSize: batchSize, scan: scan, catalog: join.tried ? nil : join.catalog)
        var round = ImportRound(report: report, catalog: catalog, conflictsBefore: conflictsBefore)
        if !join.changes.isEmpty {
            // Consumed, not copied: the merge then grows the join's own set (a newcomer's holds
            // every object of the baseline) instead of copying it first.
            var changes = join.changes
            join.changes = ObjectChanges()
            changes.merge(round.report.changes)
            round.report.changes = changes
        }
        return round
    }

    /// Logs the round's conflicts at level 3, counts them, and lets the app's resolver decide them.
    private func tellConflicts(after conflictsBefore: Int64) throws {
        if logger.level >= .verbose {
            for conflict in try store.conflicts() where conflict.id > conflictsBefore {
                logger.log(.verbose, .conflictRecorder, "record", "conflict #\(conflict.id) on \(conflict.object).\(conflict.property) (\(conflict.kind.rawValue)): \(conflict.winnerValue.text()) from \(conflict.winnerPeer) won over \(conflict.loserValue.text()) from \(conflict.loserPeer)")
            }
        }
        metrics.recordedConflicts(try store.lastConflictID() - conflictsBefore)
        try resolveImportConflicts(after: conflictsBefore)
    }

    /// What a round's baseline upkeep did.
    struct BaselineUpkeep {
        var baseline: BaselineDecision?
        var garbage: GarbageReport
        var externalDataGarbage: ExternalDataGarbageReport?
    }

    /// Rolls a baseline if the policy asks for one, then collects what no peer needs any more.
    /// Neither adds logs: one listing serves both.
    private func maintainBaselines(_ location: ContainerLocation, _ baseliner: Baseliner, policy: BaselinePolicy,
                                   scan: inout ContainerScan, catalog roundCatalog: BaselineCatalog?) -> BaselineUpkeep {
        scan.relist(peer: store.peerID)
        let baseline = try? syncLock.withLock { try rolling(baseliner) { try $0.rollIfNeeded(policy: policy, scan: scan, catalog: roundCatalog) } }
        var externalDataGarbage: ExternalDataGarbageReport?
        let garbage = syncLock.withLock { collectingGarbage {
            // A roll that rolled (or threw on its way) may have changed the baseline folder.
            let catalog = baseline?.isSkipped == true ? roundCatalog ?? baseliner.catalog() : baseliner.catalog()
            baseliner.deleteRedundantCopies(catalog)
            let collector = GarbageCollector(store: store, location: location, logger: logger)
            let report = collector.collect(view: catalog.view, policy: policy, now: configuration.clock.now, scan: scan)
            if !report.deleted.isEmpty || !report.deletedCopies.isEmpty { scan.relist(peer: store.peerID) } // the logs just collected name nothing any more
            externalDataGarbage = collector.collectExternalData(catalog: catalog, policy: policy, now: configuration.clock.now, scan: scan)
            collectLocalExternalData(policy: policy)
            return report
        } }
        return BaselineUpkeep(baseline: baseline, garbage: garbage, externalDataGarbage: externalDataGarbage)
    }

    /// Deletes the device's files of external values this store no longer needs — only for an
    /// account or local store with no fallback beside it, which shares the folder.
    private func collectLocalExternalData(policy: BaselinePolicy) {
        guard let fallback = fallbackBeside else { return }
        guard !DirectoryEntry.list(fallback).contains(where: { $0.name.hasSuffix(".sqlite") }) else { return }
        do {
            let deleted = try store.collectExternalData(gracePeriod: policy.externalDataGracePeriod, now: configuration.clock.now.timeIntervalSince1970)
            if !deleted.isEmpty { logger.log(.info, .garbageCollector, "collect", "deleted \(deleted.count) external data file(s) of this device nothing needs") }
        } catch {
            logger.log(.warning, .garbageCollector, "collect", "external data of this device not collected: \(error)")
        }
    }
}
