import CoreMetrics
import Foundation
import Synchronization
import UbiquityBase
import UbiquityCore
import UbiquityPlist
import UbiquitySync

/// One device running one app store: opens one of the device's stores (the current account's
/// by default), exports each save and imports other peers' logs. Opened on its own, it owns the
/// device (a lock); a `UbiquitousStoreCoordinator` opens peers under its own lock.
public final class UbiquityPeer: @unchecked Sendable {
    // @unchecked: its store serializes itself; its own mutable state is `OwnNumbersMemo`, used under `syncLock`.
    public let configuration: PeerConfiguration
    public let device: Device
    public let peerID: String
    public let kind: StoreKind
    public let store: PersistentStore
    /// Where this peer syncs; `nil` for the local and fallback stores.
    public let location: ContainerLocation?
    /// What was done to the store when it was opened, if it was made for another model version.
    public let migration: ModelMigration?
    /// `<device>/CoreDataUbiquitySupport/<peerID>/<ContentName>/<cid | local>`
    let localDirectory: String
    /// `localDirectory`'s layout: the store, its key, its sync's scratch and quarantine folders.
    var folder: StoreFolder { StoreFolder(path: localDirectory) }
    let logger: UbiquityLogger
    private let deviceLock: FileLock?
    /// The fallback folder beside an account or local store's folder (`nil` for a fallback
    /// store): made once, since Foundation's path functions cost ~100k instructions a call.
    let fallbackBeside: String?
    let events = EventHub<PeerEvent>()
    /// Where this peer's sync activity is told: the coordinator's, or the peer's own.
    let activityHub: ActivityHub
    /// Whether the hub is this peer's own, ended at its `close()`.
    private let ownsActivityHub: Bool
    let syncLock = NSLock()
    private let closedFlag = Mutex(false)
    /// What the last check of this peer's own numbers found, under `syncLock` (`nil` without a container).
    let ownNumbers: OwnNumbersMemo?
    /// The peer's counters and timers, made once when it opens.
    let metrics: SyncMetrics

    /// Opens the peer on the current account's store (or the local store when signed out),
    /// taking the device's lock. A store it has never seen is created empty and catches up
    /// with the container at once; use `UbiquitousStoreCoordinator` for the fallback flow.
    public convenience init(configuration: PeerConfiguration) throws {
        try configuration.validate()
        let (device, lock) = try Self.openDevice(configuration)
        try self.init(configuration: configuration, device: device, deviceLock: lock,
                      kind: device.identityToken == nil ? .local : .account)
    }

    static func openDevice(_ configuration: PeerConfiguration) throws -> (Device, FileLock) {
        do throws(DeviceError) {
            // Load first: a mistyped device path must not leave a folder behind.
            var device = try Device.load(from: configuration.device)
            let lock = try FileLock(directory: configuration.device)
            // A mistyped cloud path must not start a new, empty cloud either.
            do throws(DeviceError) { try device.claim(cloud: configuration.cloud) } catch {
                lock.release()
                throw error
            }
            return (device, lock)
        } catch {
            throw PeerError.device(error)
        }
    }

    /// Whether this peer was opened with `openReadOnly`: it reads, and never writes anything.
    public let isReadOnly: Bool

    init(configuration: PeerConfiguration, device: Device, deviceLock: FileLock?, kind: StoreKind, readOnly: Bool = false,
         activities: ActivityHub? = nil) throws {
        self.configuration = configuration
        activityHub = activities ?? ActivityHub()
        ownsActivityHub = activities == nil
        self.device = device
        self.deviceLock = deviceLock
        self.kind = kind
        isReadOnly = readOnly
        peerID = device.peerID(peerToken: configuration.peerToken)
        let deviceLocation = DeviceLocation(configuration, device: device)
        let folder = try readOnly ? deviceLocation.existingStoreFolder(kind: kind, token: device.identityToken)
                                  : deviceLocation.storeFolder(kind: kind, token: device.identityToken)
        localDirectory = folder.path
        if let token = device.identityToken, kind == .account {
            location = ContainerLocation(
                cloud: device.cloudSeenHere(configuration.cloud), identityToken: token, containerIdentifier: configuration.containerIdentifier,
                contentURL: configuration.contentURL, contentName: configuration.contentName, modelHash: configuration.model.hash)
                .sealed(keyFile: folder.keyFile, scratchDirectory: folder.stagingDirectory)
        } else {
            location = nil
        }
        let peerID = peerID
        ownNumbers = location.map { OwnNumbersMemo(location: $0, peerID: peerID) }
        let storePath = folder.storeFile(kind: kind, storeName: configuration.storeName)
        var migrationLogger = configuration.logger
        migrationLogger.peerID = peerID
        migrationLogger.storeName = configuration.storeName
        metrics = SyncMetrics(factory: configuration.metricsFactory ?? MetricsSystem.factory, store: configuration.contentName)
        let migrationStart = SyncMetrics.now()
        migration = readOnly ? nil : try Self.migrateStoreIfNeeded(configuration, device: device, kind: kind, path: storePath,
                                                                     logger: migrationLogger, activities: activityHub)
        if migration != nil { metrics.record(.migration, since: migrationStart) }
        do {
            store = try PersistentStore(path: storePath, model: configuration.model, peerID: peerID, storeName: configuration.storeName,
                                        contentName: configuration.contentName, readOnly: readOnly)
        } catch let error as StoreError where readOnly {
            // A reader of another model version is told how to migrate, as the owner would be.
            if case .modelMismatch = error, let (source, plans) = try Self.migrationPlan(configuration, path: storePath) {
                throw Self.migrationNotEnabled(configuration, source: source, plans: plans)
            }
            // A store half made by an owner that died is no store yet: nobody holds the device.
            if case let .beingCreated(path) = error, FileLock.holder(directory: configuration.device) == nil {
                throw StoreError.missing(path)
            }
            throw error
        }
        store.wallClock = configuration.clock
        let storeFolder = (store.path as NSString).deletingLastPathComponent
        fallbackBeside = (storeFolder as NSString).lastPathComponent == "store" ? (storeFolder as NSString).deletingLastPathComponent + "/fallback" : nil
        var logger = configuration.logger
        logger.peerID = peerID
        logger.storeName = configuration.storeName
        self.logger = logger
        for feature in configuration.model.unhonouredFeatures {
            logger.log(.warning, .model, "initWithModel:", "model \(configuration.model.name): \(feature)")
        }
        if readOnly { return }
        if kind == .account {
            // When the account's store was last used: the cleanup of unused accounts reads it.
            try? AtomicFile.write(Array(String(configuration.clock.now.timeIntervalSince1970).utf8), to: folder.lastUsedFile)
        }
        try recordContentEpochOfNewStore()
        try catchUpWithOwnLogs()
    }

    /// A store rebuilt, lost and recreated, or brought back from a backup knows fewer of its
    /// own transactions than the container holds. Its later numbers are reserved first (and
    /// unsent saves that took one of them move above), then it catches up — from its own logs,
    /// or the baseline that holds them — before any save, so a transaction number is never
    /// reused.
    func catchUpWithOwnLogs() throws {
        guard let location else { return }
        // Encrypted content without the key: nothing can be read; the catch-up runs once the
        // device is given the passphrase (`unlockEncryption`), and saves wait in the outbox.
        if case .locked = location.sealing.state { return }
        let floor = try reserveOwnNumbers(location)
        guard floor > store.knowledge[peerID] else { return }
        logger.log(.warning, .setupAssistant, "catchUp", "the store knows transaction \(store.knowledge[peerID]) of this peer but the container holds \(floor): catching up before any save")
        _ = try sync()
        // What cannot be imported yet (a log gone, damaged or waiting on another) is no reason to
        // stop: its number is reserved, saves go above it, and it imports once it can.
        if store.knowledge[peerID] < floor {
            logger.log(.warning, .setupAssistant, "catchUp", "own transactions \(store.knowledge[peerID] + 1)–\(floor) cannot all be imported yet; saves continue after \(store.ownNumbersTaken)")
        }
    }

    /// A new context on this peer's store; each save is exported at once when the container is writable.
    public func newContext() -> ObjectContext {
        let context = ObjectContext(store: store)
        context.logFormat = configuration.logFormat
        context.didSave = { [weak self] _, _ in
            guard let self else { return }
            _ = try? self.exportPending()
        }
        return context
    }

    /// Writes pending local logs into the container. Returns how many were written. A store
    /// just migrated writes none until its migrated state is in a baseline of its model (`sync`).
    @discardableResult
    public func exportPending() throws -> Int {
        try refuseUnlessWritable("export")
        guard let location, try store.migrationKnowledgeOwed() == nil else { return 0 }
        // Another device may have turned encryption on since: never write plaintext into it.
        location.sealing.refresh()
        // Nothing goes out under a number the container already holds (a store restored from a backup).
        if try !store.pendingOutbox().isEmpty { try syncLock.withLock { _ = try reserveOwnNumbers(location) } }
        let written = try syncLock.withLock {
            var exporter = Exporter(store: store, location: location, logger: logger, metrics: metrics)
            exporter.activity = activityHub.reporter(.export)
            return try metrics.time(.export) { try exporter.activity.run { try exporter.flush() } }
        }
        return written
    }

    /// Imports what other peers wrote, rewrites the receipt, and tells subscribers. Each committed batch (of `batchSize` logs at most) is announced as a `.didImport` event.
    public func importAvailable(batchSize: Int = .max) throws -> ImportReport { try importAvailable(batchSize: batchSize, scan: nil).report }
    /// `scan` and `catalog`: this round's listing and baselines, when the caller has them (an
    /// import writes no baseline); returns the catalog the receipt was written from.
    func importAvailable(batchSize: Int, scan: ContainerScan?, catalog: BaselineCatalog? = nil) throws -> (report: ImportReport, catalog: BaselineCatalog?) {
        try refuseUnlessWritable("import")
        guard let location else { return (ImportReport(), nil) }
        location.sealing.refresh()
        return try syncLock.withLock {
            var importer = Importer(store: store, location: location, quarantineDirectory: folder.quarantineDirectory, logger: logger)
            importer.activity = try activityHub.reporter(try store.initialImportCompleted() ? .import : .initialImport)
            let report = try metrics.time(.import) {
                try importer.activity.run { try importer.importAvailable(batchSize: batchSize, scan: scan) { events.post(.didImport($0)) } }
            }
            metrics.imported(report)
            let exporter = Exporter(store: store, location: location, logger: logger)
            let catalog = catalog ?? makeBaseliner(location).catalog(), view = catalog.view
            if !report.applied.isEmpty || exporter.receiptIsStale(baselineView: view, scan: scan) { try? exporter.writeReceipt(baselineView: view) }
            return (report, catalog)
        }
    }

    /// A stream of this peer's events, from now on.
    public func eventStream() -> AsyncStream<PeerEvent> { events.stream() }

    /// Calls `handler` with each of this peer's events, from now on, on the thread that posts it.
    public func observe(_ handler: @escaping @Sendable (PeerEvent) -> Void) { events.observe(handler) }

    /// Closes the peer for good: a save or import commit in progress finishes first, the store is
    /// closed (every later use of the peer, its store or a context on it throws
    /// `StoreError.closed`), and the device is released if this peer owns it. Nothing is
    /// written to the device once this returns. Also done when the peer goes away.
    public func close() {
        // Not under the sync lock: an observer may close from a did-import posted under it. The
        // store's own lock lets a commit in progress finish; later steps of a sync throw.
        closedFlag.withLock { $0 = true }
        store.close()
        events.finish()
        if ownsActivityHub { activityHub.finish() }
        deviceLock?.release()
    }

    /// Whether `close()` was called.
    public var isClosed: Bool { closedFlag.withLock { $0 } }
}
