import Foundation
import UbiquityBase
import UbiquityCore
import UbiquitySync

/// Which store a coordinator put the app on, and why.
public struct StoreChoice: Sendable, Equatable {
    public let kind: StoreKind
    public let reason: String
}

/// The entry point an app holds (Core Data's persistent store coordinator with a ubiquitous
/// store): owns the device, decides which store the app works on, runs the initial import in
/// the background and posts the transitions of Docs/Lifecycle.md.
///
/// First use of an account: the app works at once on a *fallback* store; the account store is
/// built in the background from the baseline and the logs; then every change saved in the
/// fallback is migrated as new local transactions, `initialImportCompleted` is posted and the
/// fallback is deleted. Later launches open the account store directly and catch up in the
/// background. Signed out: the `local` store, which never syncs.
public final class UbiquitousStoreCoordinator: @unchecked Sendable {
    // @unchecked: its peer, stores and handover state are used only under `lock`.
    public let configuration: PeerConfiguration
    /// The device as last read from `device.plist` (its account changes over time).
    public var device: Device { lock.withLock { currentDevice } }
    private var currentDevice: Device
    private let deviceLock: FileLock
    private var watcher: DirectoryWatcher?
    private var liveImporter: LiveImporter?
    /// How this coordinator imports while it runs.
    public let liveImport: LiveImport
    private let liveActivity = EventHub<LiveImportActivity>()
    private let syncStates = EventHub<SyncState>()
    /// The sync activity of every store this coordinator opens (`observeActivity`).
    let activityHub = ActivityHub()
    private var currentSyncState = SyncState.starting
    /// The round running now: its store, and the last activity begun before it (its import's
    /// reports come after). `nil` between rounds, so a report delivered late changes nothing.
    private var runningRound: (peer: UbiquityPeer, after: Int)?
    /// The last state recorded for `status` in this round.
    private var recordedSyncState: SyncState?
    /// Takes each state change whole (record, set, post), the round's thread and the activity
    /// queue's in one order: a late import report never lands after the round's result.
    /// Recursive: an observer of the state may run a round from its handler on the same thread.
    private let stateGate = NSRecursiveLock()
    /// The coordinator's own look at its imports' progress (`SyncState.importing`).
    private var importObservation: ActivityObservation?
    /// One round of sync at a time, the app's and live import's.
    private let syncGate = NSLock()
    /// Set by `close()`: every later call throws `StoreError.closed`.
    private var closed = false
    /// Recursive: an observer may close the coordinator from an event posted during a switch or a live round.
    private let switchLock = NSRecursiveLock()
    private let lock = NSRecursiveLock()
    private var current: UbiquityPeer?
    private var reason = "no store added yet"
    private var fallbackMerges: [GlobalID: GlobalID] = [:]
    private let importDone = DispatchGroup()
    private var importError: (any Error)?
    /// Where the initial import and the launch catch-up run.
    public let background: BackgroundWork
    private let watchesDevice: Bool
    let events: EventHub<CoordinatorEvent>
    let logger: UbiquityLogger
    /// Runs on the import thread after the account store is built and before the handover
    /// (tests use it to save into the fallback while the import runs).
    var beforeHandover: (@Sendable () throws -> Void)?

    /// Validates the options as Apple did and takes the device. Subscribe before `addStore()`
    /// to see every event. `background` runs the imports (a manual one lets a scenario decide
    /// when); without `watchesDevice`, account changes are noticed only by `checkAccount()`.
    /// `liveImport`: from `addStore()` until `close()`, other peers' saves are imported as they
    /// arrive and posted as did-import, with no call from the app (`.off`: only `sync()` imports).
    public init(configuration: PeerConfiguration, background: BackgroundWork = BackgroundWork(), watchesDevice: Bool = true,
                liveImport: LiveImport = .automatic) throws {
        try configuration.validate()
        try Self.checkCloud(configuration.cloud)
        self.configuration = configuration
        self.background = background
        self.watchesDevice = watchesDevice
        self.liveImport = liveImport
        (currentDevice, deviceLock) = try UbiquityPeer.openDevice(configuration)
        var logger = configuration.logger
        logger.peerID = currentDevice.peerID(peerToken: configuration.peerToken)
        logger.storeName = configuration.storeName
        self.logger = logger
        events = EventHub { [logger] event in
            if case .didImport = event { return }
            logger.log(.info, .setupAssistant, "postStoresChanged", "\(event)")
        }
        importObservation = activityHub.observe { [weak self] activity in self?.importReported(activity) }
    }

    private static func checkCloud(_ cloud: String) throws {
        do { try AtomicFile.makeDirectory(cloud) } catch { throw PeerError.cloudNotCreatable(path: cloud, reason: error.message) }
        guard access(cloud, W_OK) == 0 else { throw PeerError.cloudNotWritable(path: cloud) }
    }

    // MARK: Adding the store

    /// Adds the store and returns at once; the initial import (if any) runs in the background.
    /// From then on the coordinator watches `device.plist` and switches stores when the
    /// device signs in, out, or to another account.
    @discardableResult
    public func addStore() throws -> StoreChoice {
        try refuseIfClosed()
        let choice = try openStore(for: device, transition: nil)
        startLiveImport()
        if watchesDevice, watcher == nil {
            watcher = try? DirectoryWatcher(directory: configuration.device) { [weak self] name in
                guard name == Device.plistName, let self else { return }
                do { try self.checkAccount() } catch {
                    self.logger.error(.setupAssistant, "accountChanged", "cannot switch accounts: \(error)")
                }
            }
        }
        return choice
    }

    /// Opens the store of `device`'s current account: the local store when signed out, the
    /// account store when its initial import completed earlier, else a fallback store while
    /// the initial import runs.
    @discardableResult
    private func openStore(for device: Device, transition: StoreTransition?) throws -> StoreChoice {
        guard device.identityToken != nil else {
            return try install(UbiquityPeer(configuration: configuration, device: device, deviceLock: nil, kind: .local, activities: activityHub),
                               reason: "signed out: the local store, which does not sync", transition: transition)
        }
        let peerID = device.peerID(peerToken: configuration.peerToken)
        let folder = try DeviceLocation(configuration, device: device).storeFolder(kind: .account, token: device.identityToken)
        let accountPath = folder.storeFile(kind: .account, storeName: configuration.storeName)
        if configuration.rebuildFromContent && transition == nil {
            // The container rebuilds a store of this model only: a store of another version
            // would be replaced by whatever this version's folder holds (perhaps nothing).
            if let stored = PersistentStore.storedModelHash(atPath: accountPath), stored != configuration.model.hash {
                throw PeerError.storeNeedsMigration(.beforeRebuild(peer: peerID, storedHash: stored, model: configuration.model.name, hash: configuration.model.hash))
            }
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: accountPath + suffix) }
            logger.notice(.setupAssistant, "rebuildFromContent", "deleted the local store of \(peerID): rebuilding it from the container")
        }
        // A fallback left behind (a crash before its handover) still holds saves to migrate.
        let fallbackPath = folder.storeFile(kind: .fallback, storeName: configuration.storeName)
        var fallbackLeft = FileManager.default.fileExists(atPath: fallbackPath)
        if fallbackLeft, let stored = PersistentStore.storedModelHash(atPath: fallbackPath), stored != configuration.model.hash {
            // Left by the app's previous version: its saves are logs of that version, so they
            // are handed over on that version, before the account store is migrated.
            try handOverOnPreviousModel(fallbackPath: fallbackPath, device: device)
            fallbackLeft = false
        }
        if PersistentStore.initialImportCompleted(atPath: accountPath) && !fallbackLeft {
            let account = try UbiquityPeer(configuration: configuration, device: device, deviceLock: nil, kind: .account, activities: activityHub)
            let choice = try install(account, reason: "the account store of '\(device.identityToken ?? "")' (its initial import completed earlier)", transition: transition)
            logger.notice(.setupAssistant, "finishSetupWithRetry:", "Using local storage: 0")
            // One round at a time: live import may run one meanwhile.
            runInBackground { [self] in _ = try syncRound(account) }
            return choice
        } else {
            // A fallback left by an earlier launch still holds saves not yet migrated: reuse it.
            let fallback = try UbiquityPeer(configuration: configuration, device: device, deviceLock: nil, kind: .fallback, activities: activityHub)
            let choice = try install(fallback, reason: "the fallback store of '\(device.identityToken ?? "")', while the initial import builds the account store", transition: transition)
            logger.notice(.setupAssistant, "finishSetupWithRetry:", "Using local storage: 1")
            runInBackground { [self] in try initialImport(fallback: fallback) }
            return choice
        }
    }

    /// Reads `device.plist` and, if the account changed, switches stores: will-change (the app's
    /// one chance to save; the old account's unsent logs stay in its outbox for its return),
    /// the new account's store (through a fallback if it is new here), did-change. Called by
    /// the watcher, and safe to call at any time.
    public func checkAccount() throws {
        try switchLock.withLock {
            let fresh = try Device.load(from: configuration.device)
            let old = device
            guard fresh.identityToken != old.identityToken else { return }
            let transition: StoreTransition = fresh.identityToken == nil ? .accountRemoved : .accountAdded
            logger.notice(.setupAssistant, "accountChanged", "the account changed from '\(old.identityToken ?? "signed out")' to '\(fresh.identityToken ?? "signed out")'")
            events.post(.storesWillChange(transition))
            background.runPending()
            _ = importDone.wait(timeout: .now() + 600)
            let previous = lock.withLock { current }
            let reason = "the device switched from '\(old.identityToken ?? "signed out")' to '\(fresh.identityToken ?? "signed out")'"
            if let previous {
                // Contexts that save meanwhile wait for the new store (and refuse to carry the old account's changes into it).
                previous.store.beginHandover(reason)
                previous.close()
            }
            lock.withLock { currentDevice = fresh }
            do {
                try openStore(for: fresh, transition: transition)
            } catch {
                previous?.store.retire("\(reason), and its store could not be opened: \(error)")
                throw error
            }
            if let previous, let next = peer { previous.store.handOver(to: next.store, reason: reason, keepsChanges: false) }
        }
    }

    private func install(_ peer: UbiquityPeer, reason: String, transition: StoreTransition?) throws -> StoreChoice {
        lock.withLock {
            current = peer
            self.reason = reason
        }
        switch peer.kind {
        case .account: setSyncState(.starting, of: peer)
        case .fallback: setSyncState(.notSyncing(.initialImport))
        case .local: setSyncState(.notSyncing(.signedOut))
        }
        liveImporter?.wake()
        if peer.kind == .account { peer.observe { [weak self] in self?.forward($0) } }
        if let migration = peer.migration { events.post(.storeMigrated(migration)) }
        events.post(.storesDidChange(transition, now: peer.kind))
        return StoreChoice(kind: peer.kind, reason: reason)
    }

    private func runInBackground(_ work: @escaping @Sendable () throws -> Void) {
        importDone.enter()
        background.submit(run: { [self] in
            do { try work() } catch {
                lock.withLock { importError = error }
                logger.error(.setupAssistant, "initialImport", "the background import failed: \(error); the app stays on its current store and a later sync retries")
            }
        }, cancel: { [importDone] in importDone.leave() }, finished: { [importDone] in importDone.leave() })
    }

    /// Starts the initial import again when it failed (the container could not be read, or the
    /// content is encrypted and this device was given the passphrase only since).
    private func retryFailedInitialImport(fallback: UbiquityPeer) {
        let failed = lock.withLock {
            defer { importError = nil }
            return importError != nil
        }
        guard failed else { return }
        runInBackground { [self] in try initialImport(fallback: fallback) }
    }

    /// Logs per SQLite transaction in the initial import. Each commit writes every page its batch
    /// touched, and past a thousand WAL pages copies them into the file again (two fsyncs); an
    /// entity table is ordered by object ID, so even a small batch touches pages all over it.
    /// Batches of 100 wrote the same pages ten times over at 100k objects (join: 0.85 → 0.58 s
    /// with 1,000); at a million, batches of 1,000 took 4.5 s to import the 10,000 logs after the
    /// baseline, one batch 2.6 s. The app works on the fallback until the handover, so fewer
    /// did-imports of the account store cost it nothing; a crash loses one batch's progress.
    static let initialImportBatch = 10_000

    /// Builds the account store, migrates what was saved in the fallback meanwhile, and hands over.
    private func initialImport(fallback: UbiquityPeer) throws {
        let account = try UbiquityPeer(configuration: configuration, device: device, deviceLock: nil, kind: .account, activities: activityHub)
        if let migration = account.migration { events.post(.storeMigrated(migration)) }
        account.observe { [weak self] in self?.forward($0) }
        let imported = try account.store.withBulkImportCache { try account.sync(importBatchSize: Self.initialImportBatch) }
        try beforeHandover?()

        events.post(.storesWillChange(.initialImportCompleted))
        // From here the fallback takes no more saves: the app was told to save in will-change.
        // A context that saves meanwhile waits, and saves into the account store after the
        // fallback's saves (so its newer edits stay newer).
        let handover = "the initial import completed; the app now works on the account store"
        fallback.store.beginHandover(handover)
        let migrated: Int, merges: [GlobalID: GlobalID]
        do { (migrated, merges) = try Self.replaySaves(of: fallback, into: account, configuration: configuration) } catch {
            fallback.store.retire("\(handover), but the fallback's saves could not be handed over: \(error)")
            throw error
        }
        lock.withLock {
            current = account
            reason = "the account store (initial import completed, \(migrated) fallback transaction(s) migrated)"
            fallbackMerges = merges
        }
        fallback.store.handOver(to: account.store, reason: handover, keepsChanges: true)
        setSyncState(SyncState(imported, at: configuration.clock.now), of: account)
        liveImporter?.wake()
        events.post(.storesDidChange(.initialImportCompleted, now: .account))
        logger.notice(.setupAssistant, "finishSetupWithRetry:", "Using local storage: 0")
        fallback.close()
        try? FileManager.default.removeItem(atPath: (fallback.store.path as NSString).deletingLastPathComponent)
    }

    /// Saves every change made in `fallback` into `account` as new local transactions, marks
    /// the account store's initial import done and exports. Returns how many were saved, and
    /// the fallback's objects that became account objects (`handoverMerges`).
    private static func replaySaves(of fallback: UbiquityPeer, into account: UbiquityPeer, configuration: PeerConfiguration) throws -> (Int, [GlobalID: GlobalID]) {
        var migrated = 0, merged: [GlobalID: GlobalID] = [:]
        let logs = try fallback.store.pendingOutbox().map { try TransactionLog(decoding: $0.bytes, model: fallback.store.model) }
        let replayed = Set(logs.flatMap { $0.inserted.map(\.id) })
        for log in logs {
            // The fallback's inserts never saw the account's objects: one holding the same
            // constrained values becomes that object, as at save.
            let records = try account.store.replayingOntoLiveHolders(inserted: log.inserted, updated: log.updated, deleted: log.deleted,
                                                                     replayed: replayed, merged: &merged)
            if try account.store.commitLocal(inserted: records.inserted, updated: records.updated, deleted: records.deleted,
                                             format: configuration.logFormat) != nil { migrated += 1 }
        }
        try account.store.markInitialImportCompleted()
        _ = try? account.exportPending()
        return (migrated, merged)
    }

    /// Finishes, on the model the fallback was made for, an initial import the app's previous
    /// version left: the account store is built on that model, the fallback's saves handed over
    /// and the fallback deleted. The account store is then migrated as any other.
    private func handOverOnPreviousModel(fallbackPath: String, device: Device) throws {
        guard let previous = PersistentStore.storedModel(atPath: fallbackPath)
                ?? PersistentStore.storedModelHash(atPath: fallbackPath).flatMap(configuration.earlierModel(hash:)) else {
            throw PeerError.storeNeedsMigration(.fallbackModelUnknown(path: fallbackPath))
        }
        var old = configuration
        old.model = previous
        old.migratesStore = false
        let fallback = try UbiquityPeer(configuration: old, device: device, deviceLock: nil, kind: .fallback, activities: activityHub)
        defer { fallback.close() }
        let account = try UbiquityPeer(configuration: old, device: device, deviceLock: nil, kind: .account, activities: activityHub)
        defer { account.close() }
        _ = try account.store.withBulkImportCache { try account.sync(importBatchSize: Self.initialImportBatch) }
        fallback.store.retire("handed over before the model was migrated")
        let (migrated, _) = try Self.replaySaves(of: fallback, into: account, configuration: old)
        logger.notice(.setupAssistant, "migrateStore", "handed \(migrated) transaction(s) of the fallback store over on model '\(previous.name)' before migrating the account store")
        try FileManager.default.removeItem(atPath: (fallbackPath as NSString).deletingLastPathComponent)
    }

    // MARK: Using the store

    /// Which store the app works on now (Apple never told).
    public var storeKind: StoreKind? { lock.withLock { current?.kind } }

    /// Why the app works on that store, in plain words.
    public var storeReason: String { lock.withLock { reason } }
    /// The objects the last handover's fallback saved that became objects of the account store
    /// holding their constrained values (Docs/SyncSemantics.md, uniqueness constraints): by the
    /// fallback's ID, the account store's.
    public var handoverMerges: [GlobalID: GlobalID] { lock.withLock { fallbackMerges } }

    /// The peer of the store the app works on now.
    public var peer: UbiquityPeer? { lock.withLock { current } }

    /// A context on the current store. It follows the store transitions: after the initial
    /// import's handover it saves into the account store (its unsaved changes carried over);
    /// after an account switch it works on the new account's store once it holds no unsaved
    /// changes of the old one. Each save is exported by the store the app is on then.
    public func newContext() throws -> ObjectContext {
        try refuseIfClosed()
        guard let peer else { throw PeerError.noStore }
        let context = peer.newContext()
        context.didSave = { [weak self] _, _ in _ = try? self?.peer?.exportPending() }
        return context
    }

    /// Waits until the background import (initial import or launch catch-up) has finished;
    /// `false` on timeout. Throws what the import threw.
    @discardableResult
    public func waitForBackgroundImport(timeout: Double = 600) throws -> Bool {
        try refuseIfClosed()
        background.runPending()
        guard importDone.wait(timeout: .now() + timeout) == .success else { return false }
        if let error = lock.withLock({ importError }) { throw error }
        return true
    }

    /// One round of sync on the account store; a content removal by another peer is posted
    /// as will/did-change `contentRemoved`. On the fallback or local store nothing syncs. With
    /// live import on, an app need not call it: it is what live import runs when files land.
    public func sync() throws -> SyncSummary {
        try refuseIfClosed()
        guard let peer, peer.kind == .account else {
            if let peer, peer.kind == .fallback { retryFailedInitialImport(fallback: peer) }
            var summary = SyncSummary()
            summary.signedOut = peer?.kind == .local
            return summary
        }
        return try syncRound(peer)
    }

    /// What the last round of sync found, or that one runs: the answer to "am I synced?"
    public var syncState: SyncState { lock.withLock { currentSyncState } }

    /// Calls `handler` with every change of `syncState` from now on, on the thread of the
    /// round that changed it (an import's progress, `.importing`, on the activity queue), in order.
    public func observeSyncState(_ handler: @escaping @Sendable (SyncState) -> Void) { syncStates.observe(handler) }

    /// The changes of `syncState` from now on, as an `AsyncStream`; it ends at `close()`.
    public func syncStateStream() -> AsyncStream<SyncState> { syncStates.stream() }

    /// Removes the content from the cloud and empties this store (Apple's `removeUbiquitousContent`).
    public func removeUbiquitousContent() throws {
        try refuseIfClosed()
        guard let peer, peer.kind == .account else { throw peer?.kind == .fallback ? SyncError.initialImportPending : SyncError.signedOut }
        try peer.removeUbiquitousContent()
    }

    /// The events from now on, as an `AsyncStream` (buffered, in order); it ends at `close()`.
    public func eventStream() -> AsyncStream<CoordinatorEvent> { events.stream() }

    /// Calls `handler` with every event from now on, on the posting thread, in order.
    public func observe(_ handler: @escaping @Sendable (CoordinatorEvent) -> Void) { events.observe(handler) }

    /// Calls `handler` with what live import does, from now on, on its thread, in order.
    public func observeLiveImport(_ handler: @escaping @Sendable (LiveImportActivity) -> Void) { liveActivity.observe(handler) }

    /// What live import does from now on, as an `AsyncStream`; it ends at `close()`.
    public func liveImportStream() -> AsyncStream<LiveImportActivity> { liveActivity.stream() }

    /// Closes the coordinator for good. Stops live import and the device watch, waits for
    /// background work (work not started yet on a manual `background` is dropped, as when an
    /// app quits mid-import: a fallback left behind is migrated at the next launch), closes the
    /// store and releases the device. A save racing it either completes first or throws; from
    /// then on every call of the coordinator, of its contexts and of its observers throws
    /// `StoreError.closed`, and nothing is written to the device. Called again, does nothing.
    public func close() {
        let first = lock.withLock {
            defer { closed = true }
            return !closed
        }
        guard first else { return }
        liveImporter?.stop()
        watcher?.stop()
        background.cancelPending()
        // Not from the import itself (an observer of its events): its store, closed next, refuses the rest.
        if !background.isRunningJob { importDone.wait() }
        switchLock.withLock { lock.withLock { current }?.close() }
        events.finish()
        liveActivity.finish()
        syncStates.finish()
        activityHub.finish()
        deviceLock.release()
    }

    /// Whether `close()` was called.
    public var isClosed: Bool { lock.withLock { closed } }

    private func refuseIfClosed() throws {
        if isClosed { throw StoreError.closed }
    }
}

extension UbiquitousStoreCoordinator {
    /// Starts live import once (`addStore`), unless it is off.
    private func startLiveImport() {
        guard liveImport != .off, liveImporter == nil else { return }
        liveImporter = LiveImporter(mode: liveImport, target: { [weak self] in
            guard let peer = self?.peer, peer.kind == .account, let location = peer.location else { return nil }
            return LiveImporter.Target(location: location, peerID: peer.peerID)
        }, round: { [weak self] in try self?.liveRound() }, report: { [weak self] activity in
            self?.report(activity)
        })
    }

    /// What live import runs: a round of sync on the account store, or a retry of a fallback's
    /// failed initial import; `nil` when the store the app works on does not sync. Not during
    /// an account switch, and never after `close()`.
    private func liveRound() throws -> SyncSummary? {
        try switchLock.withLock {
            guard !isClosed, let peer else { return nil }
            switch peer.kind {
            case .account: return try syncRound(peer)
            case .fallback: retryFailedInitialImport(fallback: peer)
            case .local: break
            }
            return nil
        }
    }

    /// One round of sync on the account store, one at a time, told in `syncState`: syncing,
    /// importing N of M while it imports, then what it found.
    private func syncRound(_ peer: UbiquityPeer) throws -> SyncSummary {
        try syncGate.withLock {
            lock.withLock { runningRound = (peer, activityHub.lastActivityID) }
            setSyncState(.syncing)
            func finish(_ state: SyncState) {
                stateGate.withLock {
                    lock.withLock { runningRound = nil }
                    applySyncState(state, of: peer)
                }
            }
            do {
                let summary = try peer.sync()
                finish(SyncState(summary, at: configuration.clock.now))
                return summary
            } catch {
                finish(SyncState(failure: error))
                throw error
            }
        }
    }

    /// An import's report, on the activity queue: `.importing` while the round that began it
    /// runs; recorded for `status` as it starts and at each tenth.
    private func importReported(_ activity: SyncActivity) {
        guard activity.kind == .import else { return }
        if case .ended = activity.phase { return }
        stateGate.withLock {
            let change: (state: SyncState, peer: UbiquityPeer)? = lock.withLock {
                guard let round = runningRound, activity.id > round.after,
                      let next = currentSyncState.importing(activity.progress) else { return nil }
                return (next, round.peer)
            }
            guard let change else { return }
            applySyncState(change.state, of: change.state.worthRecording(after: recordedSyncState) ? change.peer : nil)
        }
    }

    /// Posts `state` when it differs from the current one; with `peer`, records it in its store
    /// first, for `status` (`SyncState.recorded(in:)`).
    private func setSyncState(_ state: SyncState, of peer: UbiquityPeer? = nil) {
        stateGate.withLock { applySyncState(state, of: peer) }
    }

    /// `setSyncState`, for a caller that holds `stateGate`.
    private func applySyncState(_ state: SyncState, of peer: UbiquityPeer?) {
        if let peer {
            peer.recordSyncState(state)
            recordedSyncState = state
        }
        let changed = lock.withLock {
            defer { currentSyncState = state }
            return currentSyncState != state
        }
        if changed { syncStates.post(state) }
    }

    private func report(_ activity: LiveImportActivity) {
        switch activity {
        case let .watching(root, peerID): logger.log(.info, .setupAssistant, "liveImport", "watching \(root) as \(peerID)")
        case let .waiting(reason): logger.log(.notice, .setupAssistant, "liveImport", "waiting: \(reason); importing again at the next change")
        case .resumed: logger.log(.notice, .setupAssistant, "liveImport", "importing again")
        case .synced, .idle: break
        }
        liveActivity.post(activity)
    }

    /// A peer's event as the app sees it: a content removal is the `contentRemoved` transition.
    private func forward(_ event: PeerEvent) {
        switch event {
        case let .didImport(changes):
            events.post(.didImport(changes))
        case .storeWillReset:
            events.post(.storesWillChange(.contentRemoved))
        case .storeDidReset:
            lock.withLock { reason = "the account store, emptied because another peer removed the content" }
            events.post(.storesDidChange(.contentRemoved, now: .account))
        }
    }
}
