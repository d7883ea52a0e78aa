import Foundation
import UbiquityPlist

/// What a peer tells its subscribers.
public enum PeerEvent: Sendable, Equatable {
    /// Logs of other peers were imported; the changed object IDs as this store sees them.
    case didImport(ObjectChanges)
}

/// The result of one `sync()`.
public struct SyncSummary: Sendable, Equatable {
    public var exported = 0
    public var imported = ImportReport()
    /// Local logs still waiting in the outbox (the container refused them).
    public var outboxPending = 0
    public var exportError: String?
    public var knowledge = KnowledgeVector()
    public var signedOut = false
    /// Another peer removed the content; this store started over empty.
    public var contentRemoved = false
    /// The author of the baseline this store started from in this sync, if it did.
    public var adoptedBaseline: String?
    public var baseline: BaselineDecision?
    public var garbage: GarbageReport?

    /// One line for people: `exported 2, imported 5 (3 inserted, 1 updated, 0 deleted), 0 waiting, 0 quarantined`.
    public var line: String {
        if signedOut { return "signed out: working on the local store, nothing to sync" }
        var text = contentRemoved ? "content removed by another peer: started over empty; " : ""
        if let adoptedBaseline { text += "started from the baseline of \(adoptedBaseline); " }
        text += "exported \(exported), imported \(imported.applied.count) (\(imported.changes.inserted.count) inserted, \(imported.changes.updated.count) updated, \(imported.changes.deleted.count) deleted), \(imported.waiting) waiting, \(imported.quarantined.count) quarantined"
        if outboxPending > 0 { text += ", \(outboxPending) in outbox" }
        if case .rolled? = baseline { text += ", rolled a baseline" }
        if let deleted = garbage?.deleted.count, deleted > 0 { text += ", deleted \(deleted) old log(s)" }
        if let exportError { text += " — \(exportError)" }
        return text
    }
}

/// One device running one app store: owns the device (a lock), opens the store of the
/// device's current account (or the `local` store when signed out), exports each save and
/// imports other peers' logs.
public final class UbiquityPeer: @unchecked Sendable {
    public let configuration: PeerConfiguration
    public let device: Device
    public let peerID: String
    public let store: PersistentStore
    /// Where this peer syncs; `nil` when the device is signed out.
    public let location: ContainerLocation?
    private let deviceLock: DeviceLock
    private let subscribers = SubscriberList()
    let syncLock = NSLock()

    /// Opens the peer: takes the device's lock, then opens the store of its current account.
    public init(configuration: PeerConfiguration) throws {
        try configuration.validate()
        self.configuration = configuration
        do {
            // Load first: a mistyped device path must not leave a folder behind.
            device = try Device.load(from: configuration.device)
            deviceLock = try DeviceLock(device: configuration.device)
        } catch {
            throw PeerError.device(error)
        }
        peerID = device.peerID(peerToken: configuration.peerToken)
        let support = "\(configuration.device)/CoreDataUbiquitySupport/\(peerID)/\(configuration.contentName)"
        let storeFolder: String
        if let token = device.identityToken {
            storeFolder = try Self.containerID(for: token, support: support)
            location = ContainerLocation(cloud: configuration.cloud, identityToken: token,
                                         containerIdentifier: configuration.containerIdentifier, contentURL: configuration.contentURL,
                                         contentName: configuration.contentName, modelHash: configuration.model.hash)
        } else {
            storeFolder = "local"
            location = nil
        }
        self.localDirectory = "\(support)/\(storeFolder)"
        store = try PersistentStore(path: "\(localDirectory)/store/\(configuration.storeName).sqlite", model: configuration.model,
                                    peerID: peerID, storeName: configuration.storeName, contentName: configuration.contentName)
        var logger = configuration.logger
        logger.peerID = peerID
        logger.storeName = configuration.storeName
        self.logger = logger
        try catchUpWithOwnLogs()
    }

    let localDirectory: String

    /// A store rebuilt (or lost and recreated) knows fewer of its own transactions than the
    /// container holds. Import them before any save, so a transaction number is never reused.
    private func catchUpWithOwnLogs() throws {
        guard let location else { return }
        let highest = DirectoryEntry.list(location.logDirectory(of: peerID)).compactMap { TransactionLog.transactionNumber(inFileName: $0.name) }.max() ?? 0
        guard highest > store.knowledge[peerID] else { return }
        logger.log(.warning, "PFUbiquitySetupAssistant", "catchUp", "the store knows transaction \(store.knowledge[peerID]) of this peer but the container holds \(highest): importing before any save")
        _ = try importAvailable()
        guard store.knowledge[peerID] >= highest else {
            throw PeerError.unusableCloud("this peer's own logs up to \(highest) cannot all be imported (knowledge stops at \(store.knowledge[peerID])); saving now would reuse transaction numbers — run 'ubiq doctor' or repair the container")
        }
    }
    let logger: UbiquityLogger

    /// The container ID (a UUID) this device uses for `token`, from `tokens.plist`, made on first use.
    private static func containerID(for token: String, support: String) throws -> String {
        let path = support + "/tokens.plist"
        var map: [String: PlistValue] = [:]
        if FileManager.default.fileExists(atPath: path) {
            map = try PlistSeam.decode(try AtomicFile.read(path, limit: 1 << 20)).dictionaryValue ?? [:]
        }
        if let existing = map[token]?.stringValue, UUID(uuidString: existing) != nil { return existing }
        let id = UUID().uuidString
        map[token] = .string(id)
        try AtomicFile.makeDirectory(support)
        try AtomicFile.write(PlistSeam.encode(.dictionary(map), format: .xml), to: path)
        return id
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

    /// Writes pending local logs into the container. Returns how many were written.
    @discardableResult
    public func exportPending() throws -> Int {
        guard let location else { return 0 }
        let written = try syncLock.withLock { try Exporter(store: store, location: location, logger: logger).flush() }
        if written > 0 { try ensureContentEpoch(location) }
        return written
    }

    /// Imports what other peers wrote, rewrites the receipt, and tells subscribers.
    public func importAvailable() throws -> ImportReport {
        guard let location else { return ImportReport() }
        let report = try syncLock.withLock {
            let report = try Importer(store: store, location: location, quarantineDirectory: localDirectory + "/container/quarantine", logger: logger).importAvailable()
            if !report.applied.isEmpty || !FileManager.default.fileExists(atPath: location.receiptPath(of: peerID)) {
                try? Exporter(store: store, location: location, logger: logger).writeReceipt()
            }
            return report
        }
        if !report.changes.isEmpty { subscribers.send(.didImport(report.changes)) }
        return report
    }

    /// One round of sync: notice a content removal, export pending logs, start from the
    /// baseline if this store fell behind it, import, then roll a baseline and collect garbage
    /// as the policy says.
    public func sync() throws -> SyncSummary {
        var summary = SyncSummary()
        guard let location else {
            summary.signedOut = true
            summary.knowledge = store.knowledge
            return summary
        }
        if try contentEpochChanged() {
            try resetForRemovedContent()
            summary.contentRemoved = true
        }
        do {
            summary.exported = try exportPending()
        } catch let error as SyncError {
            summary.exportError = error.description
        }
        let baseliner = makeBaseliner(location)
        if let baseline = baseliner.currentMetadata(), try store.pendingOutbox().isEmpty, baseliner.mustAdopt(baseline) {
            try syncLock.withLock { try baseliner.adopt(baseline) }
            summary.adoptedBaseline = baseline.author
        }
        summary.imported = try importAvailable()
        if let policy = configuration.baselinePolicy, summary.exportError == nil {
            summary.baseline = try? syncLock.withLock { try baseliner.rollIfNeeded(policy: policy) }
            summary.garbage = collectGarbage(policy: policy)
        }
        summary.outboxPending = try store.pendingOutbox().count
        summary.knowledge = store.knowledge
        return summary
    }

    /// A stream of this peer's events, from now on.
    public func events() -> AsyncStream<PeerEvent> { subscribers.subscribe() }

    /// Releases the device (also done when the peer goes away).
    public func close() {
        subscribers.finish()
        deviceLock.release()
    }
}

/// The continuations of every event stream, guarded by a lock.
final class SubscriberList: @unchecked Sendable {
    private let lock = NSLock()
    private var continuations: [UUID: AsyncStream<PeerEvent>.Continuation] = [:]

    func subscribe() -> AsyncStream<PeerEvent> {
        let (stream, continuation) = AsyncStream<PeerEvent>.makeStream()
        let id = UUID()
        lock.withLock { continuations[id] = continuation }
        continuation.onTermination = { [weak self] _ in self?.lock.withLock { self?.continuations[id] = nil } }
        return stream
    }

    func send(_ event: PeerEvent) {
        for continuation in lock.withLock({ Array(continuations.values) }) { continuation.yield(event) }
    }

    func finish() {
        for continuation in lock.withLock({ Array(continuations.values) }) { continuation.finish() }
    }
}
