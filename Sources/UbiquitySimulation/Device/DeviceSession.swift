import Foundation
import Ubiquity

/// The app on one device of a scenario: it adds the store through a coordinator, edits and
/// saves through one context, reacts to will-change as told (by default it saves, as Apple
/// advised), merges imports into its context, and answers the runner's probes. The same code
/// runs a device inside the runner's process and a device in its own process.
///
/// Background work is manual: the import runs when the runner gives the app time, so a seed
/// replays the same interleaving of edits and imports.
public final class DeviceSession: @unchecked Sendable {
    // @unchecked: driven by one thread: background work is manual, so the coordinator's observer runs on the thread that calls `handle`.
    public let setup: DeviceSetup
    let clock = SimulatedClock()
    /// The model the app opens its store with (a `model` step changes it between launches).
    private(set) var model: ObjectModel
    private var coordinator: UbiquitousStoreCoordinator?
    private var background: BackgroundWork?
    private var context: ObjectContext?
    /// The peer the context was made on (held, so a new peer at the same address is never taken for it).
    private var contextPeer: UbiquityPeer?
    private var policy = MergePolicy.error
    private var willChangeReaction = "save"
    /// Whether the last sync wrote into the container (exports, receipt, baseline, deletions).
    private var syncWroteFiles = true
    private let lock = NSLock()
    private var events: [String] = []
    private var saves: [SavedTransaction] = []
    private var handovers: [Handover] = []
    /// Saves of `mutate` the model's rules refused since the last answer.
    private var refusals: [String] = []
    /// Objects the app saved in a fallback store, by account, until its handover.
    private var fallbackObjects: [String: Set<String>] = [:]
    /// The last conflict ID already told, by store file.
    private var conflictsTold: [String: Int64] = [:]

    public init(setup: DeviceSetup) throws {
        self.setup = setup
        model = try setup.modelFile.map { try ObjectModel.load(contentsOf: $0) } ?? .notes
    }

    /// Does what `request` asks at its scenario time and answers with what happened.
    public func handle(_ request: DeviceRequest) -> DeviceReply {
        clock.advance(to: request.now)
        var reply = DeviceReply()
        syncWroteFiles = true
        do {
            try perform(request.command, into: &reply)
        } catch {
            reply.error = "\(error)"
        }
        reply.wroteFiles = syncWroteFiles
        reply.storeKind = coordinator?.storeKind
        reply.account = coordinator?.device.identityToken
        reply.knowledgeTotal = coordinator?.peer.map { $0.store.knowledge.entries.values.reduce(0, +) }
        reply.conflicts = newConflicts()
        reply.syncStateDisagreement = syncStateDisagreement()
        lock.withLock {
            reply.events = events
            reply.saves = saves
            reply.handovers = handovers
            reply.refusals = refusals
            refusals.removeAll()
            events.removeAll()
            saves.removeAll()
            handovers.removeAll()
        }
        return reply
    }

    /// Whether what `status` prints as the state (the record in the store) differs from the
    /// app's `syncState` at this moment, between two steps: in words, or `nil` when they agree.
    private func syncStateDisagreement() -> String? {
        guard let coordinator, let peer = coordinator.peer else { return nil }
        let recorded = SyncState.recorded(in: peer), state = coordinator.syncState
        guard recorded != state else { return nil }
        return "status would say the sync state is '\(recorded.line)', the app's syncState is '\(state.line)'"
    }

    /// Closes the coordinator, if the app runs.
    public func close() {
        coordinator?.close()
        coordinator = nil
        context = nil
        contextPeer = nil
    }

    // MARK: Commands

    private func perform(_ command: DeviceCommand, into reply: inout DeviceReply) throws {
        switch command {
        case let .perform(verb): try perform(verb)
        case let .edit(entity, key, roll): try edit(entity: entity, key: key, roll: roll)
        case let .mutate(key, pooled, roll): try mutate(key: key, pooled: pooled, roll: roll)
        case .runBackground: background?.runPending()
        case let .probe(full): reply.state = try probe(full: full)
        case let .object(entity, key):
            let id = try GlobalID(entity: entity, key: key)
            guard let store = coordinator?.peer?.store, let snapshot = try store.snapshot(of: id), try store.isAlive(id) else { return }
            reply.values = snapshot.values.mapValues { $0.jsonValue.text() }
        case let .count(entity):
            reply.count = try coordinator?.peer?.store.count(FetchRequest(entity: entity)) ?? 0
        }
    }

    private func perform(_ verb: DeviceVerb) throws {
        switch verb {
        case let .launch(rebuild):
            guard coordinator == nil else { throw SimulationError("\(setup.name) is already running") }
            try launch(rebuild: rebuild)
        case .quit:
            guard coordinator != nil else { throw SimulationError("\(setup.name) is not running") }
            close()
        case let .insert(entity, key, values):
            let context = try currentContext()
            let object = try context.insert(entity, key: key)
            for assignment in values { try assignment.apply(to: object, in: context) }
        case let .update(entity, key, values):
            let context = try currentContext()
            let object = try existing(entity, key, in: context)
            for assignment in values { try assignment.apply(to: object, in: context) }
        case let .delete(entity, key):
            let context = try currentContext()
            context.delete(try existing(entity, key, in: context))
        case let .relate(entity, key, relationship, targetEntity, targetKey), let .unrelate(entity, key, relationship, targetEntity, targetKey):
            let adding = { if case .relate = verb { return true } else { return false } }()
            try relate(entity, key, relationship, to: targetEntity, targetKey, adding: adding)
        case .save:
            try save()
        case .expectSaveFails:
            do { try save() } catch { return }
            throw SimulationError("the save succeeded; the scenario expected it to fail")
        case .rollback:
            context?.rollback()
        case .sync:
            try sync()
        case let .policy(name):
            policy = Self.mergePolicy(name)
            context?.mergePolicy = policy
        case let .onWillChange(reaction):
            willChangeReaction = reaction
        case let .signIn(token):
            _ = try Device.setAccount(token, at: setup.device)
            try coordinator?.checkAccount()
        case .signOut:
            _ = try Device.setAccount(nil, at: setup.device)
            try coordinator?.checkAccount()
        case .removeContent:
            guard let coordinator else { throw SimulationError("\(setup.name) is not running") }
            try coordinator.removeUbiquitousContent()
            context = nil
        case let .useModel(path):
            guard coordinator == nil else { throw SimulationError("\(setup.name) is running: quit it before it changes model") }
            model = path == "notes" ? .notes : try ObjectModel.load(contentsOf: path)
        case let .rollBaseline(force):
            guard let peer = coordinator?.peer else { throw SimulationError("\(setup.name) is not running") }
            if case let .skipped(reason) = try peer.rollBaseline(force: force), force {
                throw SimulationError("no baseline rolled: \(reason)")
            }
        case .encryptionEnable, .encryptionUnlock, .encryptionChange, .expectEncryption:
            try performEncryption(verb)
        case .offline, .online, .corruptLog, .destroyBaseline, .expectStore, .expectEvents, .expectValues, .expectDeleted, .expectCount,
             .expectUploadsWaiting, .expectConflicts, .edit, .mutate, .waitFor:
            throw SimulationError("'\(verb)' is the runner's step, not the app's")
        }
    }

    /// Adds `target` to a to-many or sets it as a to-one (`adding`), or takes it away.
    private func relate(_ entity: String, _ key: String, _ relationship: String, to targetEntity: String, _ targetKey: String, adding: Bool) throws {
        let context = try currentContext()
        let object = try existing(entity, key, in: context)
        let target = try GlobalID(entity: targetEntity, key: targetKey)
        guard let description = object.entity.relationship(relationship) else {
            throw ModelError.unknownProperty(entity: entity, property: relationship)
        }
        switch (description.isToMany, adding) {
        case (true, true): try object.add(target, to: relationship)
        case (true, false): try object.remove(target, from: relationship)
        case (false, true): try object.setTarget(target, of: relationship)
        case (false, false): if try object.target(of: relationship) == target { try object.setTarget(nil, of: relationship) }
        }
    }

    /// A sync round; notes whether it wrote any file the transfer daemon should look at.
    private func sync() throws {
        guard let coordinator else { throw SimulationError("\(setup.name) is not running") }
        let summary = try coordinator.sync()
        syncWroteFiles = summary.exported > 0 || !summary.imported.applied.isEmpty || !summary.repaired.isEmpty
            || summary.contentRemoved || summary.adoptedBaseline != nil || (summary.garbage?.deleted.isEmpty == false)
            || { if case .rolled? = summary.baseline { return true } else { return false } }()
    }

    /// The encryption verbs: enable, unlock, change the passphrase, and expect a state.
    private func performEncryption(_ verb: DeviceVerb) throws {
        switch verb {
        case let .encryptionEnable(passphrase):
            guard let peer = coordinator?.peer, peer.kind == .account else { throw SimulationError("\(setup.name) is not running on its account store") }
            // Scenarios derive keys at the low cost: the simulation measures sync, not scrypt.
            try peer.enableEncryption(passphrase: passphrase, parameters: .fast)
        case let .encryptionUnlock(passphrase):
            try UbiquityPeer.unlockEncryption(configuration: try configuration(), passphrase: passphrase)
            // A running app syncs once it has the key (on a fallback store, that starts its initial import again).
            _ = try coordinator?.sync()
        case let .encryptionChange(old, new):
            guard let peer = coordinator?.peer, peer.kind == .account else { throw SimulationError("\(setup.name) is not running on its account store") }
            try peer.changePassphrase(from: old, to: new)
        case let .expectEncryption(expected):
            let found = try UbiquityPeer.encryptionState(configuration: try configuration()).name
            if found != expected { throw SimulationError("its content's encryption is \(found); the scenario expects \(expected)") }
        default:
            throw SimulationError("'\(verb)' is not an encryption step")
        }
    }

    /// The app's configuration on this device.
    private func configuration(rebuild: Bool = false) throws -> PeerConfiguration {
        let logger = setup.logLevel.map { UbiquityLogger(level: LogLevel(rawValue: $0) ?? .notice) } ?? .silent
        var configuration = PeerConfiguration(cloud: setup.cloud, device: setup.device, model: model, contentName: setup.contentName,
                                              baselinePolicy: setup.baselinePolicy.policy, logger: logger)
        configuration.clock = clock.wallClock(skew: setup.skew)
        configuration.rebuildFromContent = rebuild
        return configuration
    }

    private func launch(rebuild: Bool) throws {
        let configuration = try configuration(rebuild: rebuild)
        let background = BackgroundWork(.manual)
        let coordinator = try UbiquitousStoreCoordinator(configuration: configuration, background: background, watchesDevice: false, liveImport: .off)
        coordinator.observe { [weak self] event in self?.observe(event) }
        self.coordinator = coordinator
        self.background = background
        do {
            try coordinator.addStore()
        } catch {
            close()
            throw error
        }
    }

    /// Insert `key` if it is not alive, else update its label (or, one time in five, delete it); then save.
    private func edit(entity: String, key: String, roll: UInt64) throws {
        let context = try currentContext()
        let description = try model.entity(named: entity)
        if let object = try context.object(GlobalID(entity: entity, key: key)) {
            if roll % 5 == 0 {
                context.delete(object)
            } else if let label = description.labelAttribute {
                try object.setValue(.string("edit \(roll % 100_000)"), for: label)
            }
        } else {
            let object = try context.insert(entity, key: key)
            for (name, value) in description.sampleValues(label: "insert \(roll % 100_000)") { try object.setValue(value, for: name) }
        }
        try save()
    }

    /// A random change over the model (`ModelMutation`), saved. A save the model's rules refuse
    /// (a relationship's count, a deny rule) is rolled back, as an app shows its user the error.
    private func mutate(key: String, pooled: Bool, roll: UInt64) throws {
        let context = try currentContext()
        var mutation = ModelMutation(model: model, roll: roll)
        if pooled { try mutation.insertPooled(prefix: setup.name, in: context) } else { try mutation.apply(key: key, in: context) }
        do {
            try save()
        } catch let error as ValidationError {
            context.rollback()
            lock.withLock { refusals.append("\(error)") }
        } catch let error as StoreError {
            guard case .deleteDenied = error else { throw error }
            context.rollback()
            lock.withLock { refusals.append("\(error)") }
        }
    }

    // MARK: The context

    private func currentContext() throws -> ObjectContext {
        guard let peer = coordinator?.peer else { throw SimulationError("\(setup.name) is not running: launch it first") }
        if let context, contextPeer === peer { return context }
        // A new store (switch, handover, content removed): the app makes a new context.
        let fresh = peer.newContext()
        fresh.mergePolicy = policy
        context = fresh
        contextPeer = peer
        return fresh
    }

    private func existing(_ entity: String, _ key: String, in context: ObjectContext) throws -> ManagedObject {
        let id = try GlobalID(entity: entity, key: key)
        guard let object = try context.object(id) else { throw StoreError.objectNotFound(id) }
        return object
    }

    /// Saves the context and records the transaction the app was told it saved.
    private func save() throws {
        guard let context, let coordinator, let peer = coordinator.peer else { return }
        guard let log = try context.save() else { return }
        let writes = log.inserted.map { SavedWrite(gid: $0.id.description, inserted: true, deleted: false, values: $0.values.mapValues { $0.jsonValue.text() }) }
            + log.updated.map { SavedWrite(gid: $0.id.description, inserted: false, deleted: false, values: $0.values.mapValues { $0.jsonValue.text() }) }
            + log.deleted.map { SavedWrite(gid: $0.description, inserted: false, deleted: true, values: [:]) }
        let saved = SavedTransaction(
            device: setup.name, account: peer.kind == .local ? nil : peer.device.identityToken, storeKind: peer.kind,
            contentEpoch: log.contentEpoch, peerID: log.peerID, number: log.transactionNumber, stamp: log.stamp.description, knowledge: log.knowledge.description,
            time: clock.seconds, writes: writes, modelHash: peer.store.model.hash)
        lock.withLock {
            saves.append(saved)
            if peer.kind == .fallback, let account = saved.account { fallbackObjects[account, default: []].formUnion(writes.map(\.gid)) }
        }
    }

    // MARK: Events

    private func observe(_ event: CoordinatorEvent) {
        switch event {
        case let .storesWillChange(transition):
            lock.withLock { events.append("will-change:\(Self.name(transition))") }
            // The app's one chance to save into the store that is going away.
            switch willChangeReaction {
            case "save":
                if context?.hasChanges == true {
                    do { try save() } catch { lock.withLock { events.append("will-change-save-failed:\(error)") } }
                }
            case "discard": context?.rollback()
            default: break
            }
        case let .storesDidChange(transition, kind):
            lock.withLock { events.append("did-change:\(transition.map(Self.name) ?? "added"):\(kind.rawValue)") }
            if transition == .initialImportCompleted { recordHandover() }
        case .storeMigrated:
            lock.withLock { events.append("store-migrated") }
        case let .didImport(changes):
            lock.withLock { events.append("did-import:\(changes.inserted.count + changes.updated.count + changes.deleted.count)") }
            // As apps merged the did-import notification: objects without unsaved changes are refreshed.
            context?.refreshAll()
        }
    }

    /// The account store as the handover left it, for the objects the fallback saved. During
    /// a switch the coordinator still names the old account: the one handed over.
    private func recordHandover() {
        guard let coordinator, let account = coordinator.device.identityToken, let store = coordinator.peer?.store else { return }
        let objects = lock.withLock { fallbackObjects.removeValue(forKey: account) ?? [] }
        var values: [String: [String: String]] = [:], acrossEntities: [String] = []
        for gid in objects {
            guard var id = try? GlobalID(gid) else { continue }
            // An object the account store knows as a uniqueness loser: the replayed saves went to its winner.
            if let winner = coordinator.handoverMerges[id] ?? (try? store.uniquenessWinner(of: id)), winner != id {
                if winner.entity != id.entity { acrossEntities.append(gid) }
                id = winner
            }
            guard (try? store.isAlive(id)) == true, let snapshot = try? store.snapshot(of: id) else { continue }
            values[gid] = snapshot.values.mapValues { $0.jsonValue.text() }
        }
        let live = (try? model.entities.flatMap { entity in try store.fetch(FetchRequest(entity: entity.name)).map(\.id.description) }) ?? []
        lock.withLock { handovers.append(Handover(account: account, values: values, liveObjects: live, mergedAcrossEntities: acrossEntities)) }
    }

    static func name(_ transition: StoreTransition) -> String {
        switch transition {
        case .accountAdded: return "accountAdded"
        case .accountRemoved: return "accountRemoved"
        case .contentRemoved: return "contentRemoved"
        case .initialImportCompleted: return "initialImportCompleted"
        }
    }

    static func mergePolicy(_ name: String) -> MergePolicy {
        switch name {
        case "store-trump": return .propertyStoreTrump
        case "object-trump": return .propertyObjectTrump
        case "overwrite": return .overwrite
        case "rollback": return .rollback
        default: return .error
        }
    }

    // MARK: Probes

    /// The conflicts the current store recorded since they were last told.
    private func newConflicts() -> [RecordedConflict] {
        guard let store = coordinator?.peer?.store, let last = try? store.lastConflictID() else { return [] }
        // A history shorter than what was told belongs to a store made anew (a rebuild).
        let told = conflictsTold[store.path].map { $0 <= last ? $0 : 0 } ?? 0
        conflictsTold[store.path] = last
        guard last > told else { return [] }
        return ((try? store.conflicts()) ?? []).filter { $0.id > told }.map(RecordedConflict.init)
    }

    private func probe(full: Bool) throws -> DeviceState {
        var state = DeviceState(running: coordinator != nil)
        guard let coordinator else {
            state.account = (try? Device.load(from: setup.device))?.identityToken
            return state
        }
        state.account = coordinator.device.identityToken
        state.storeKind = coordinator.storeKind
        state.backgroundPending = background?.pendingCount ?? 0
        guard let peer = coordinator.peer else { return state }
        let store = peer.store
        state.peerID = peer.peerID
        state.knowledge = store.knowledge.entries
        state.outbox = try store.pendingOutbox().map(\.number)
        state.liveObjects = try model.entities.flatMap { entity in try store.fetch(FetchRequest(entity: entity.name)).map(\.id.description) }
        let conflicts = try store.conflicts()
        state.conflictCount = conflicts.count
        if full {
            state.mergeState = try store.mergeState().text()
            state.conflictLosers = conflicts.map { "\($0.object)|\($0.property)|\($0.loserStamp)" }
            state.uniquenessDuplicates = try UniquenessDuplicate.find(in: store, model: store.model)
        }
        return state
    }
}

/// A step the simulation cannot do as asked; its text is the whole message.
public struct SimulationError: Error, CustomStringConvertible, Sendable {
    public let description: String

    public init(_ description: String) { self.description = description }
}
