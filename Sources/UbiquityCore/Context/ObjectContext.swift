import UbiquityPlist

/// A scratch pad of changes over a store, saved as one local transaction (Core Data's
/// managed object context). Not thread-safe: use each context on one thread or task.
///
/// Reads see the saved state plus this context's unsaved changes; `fetch` selects by saved
/// values. `save()` applies the delete rules, validates, and commits data and outbox entry
/// together; the log is then exported by the peer.
///
/// A store transition does not strand a context: when its store is handed over (the fallback
/// to the account store after the initial import; one account's store to another's), the
/// context moves to the new store at its next call (`ObjectContextHandover.swift`).
public final class ObjectContext {
    /// The store this context reads and saves; it changes when that store is handed over.
    public internal(set) var store: PersistentStore
    /// The format of logs written for this context's saves.
    public var logFormat: PlistFormat = .binary
    /// How a save treats objects that changed in the store since this context read them.
    public var mergePolicy: MergePolicy = .error
    /// The conflicts the last save found and resolved by `mergePolicy` (as they were before it
    /// decided); empty when it found none.
    public internal(set) var resolvedConflicts: [MergeConflict] = []
    /// Called after each successful save with the committed log (the peer exports from here).
    public var didSave: ((TransactionLog, ObjectChanges) -> Void)?

    // Touched for every object inserted; the context is used on one thread and no access to
    // these spans a call that reaches them again, so Swift's run-time check of exclusive
    // access is left out of them.
    @exclusivity(unchecked) var registered: [GlobalID: ManagedObject] = [:]
    @exclusivity(unchecked) var insertedIDs: Set<GlobalID> = []
    @exclusivity(unchecked) var insertionOrder: [GlobalID] = []
    var deletedIDs: Set<GlobalID> = []
    var deletionOrder: [GlobalID] = []
    /// Unsaved pair changes of pair-stored relationships, keyed by the owning side.
    var pendingPairs: [PairChange: Bool] = [:]
    var pairOrder: [PairChange] = []
    var deferredErrors: [any Error] = []
    /// The targets of each to-many relationship (of a pair table) when this context first changed it.
    var toManyRead: [ToManyKey: Set<GlobalID>] = [:]
    /// Unsaved placements in ordered to-many relationships: member → `OrderKey`, by the object
    /// and relationship that hold the order.
    var pendingPositions: [ToManyKey: [GlobalID: String]] = [:]
    /// `insertableEntity`'s last answer, with the store it came from (dropped at a handover).
    var lastInsertedEntity: InsertedEntity?
    /// The attribute layout of each entity `insert` made objects of, with the store whose model it is from.
    var attributeLayouts: [String: (store: PersistentStore, layout: AttributeLayout)] = [:]

    struct ToManyKey: Hashable {
        let object: GlobalID
        let relationship: String
    }

    struct PairChange: Hashable {
        let owner: String
        let relationship: String
        let source: GlobalID
        let target: GlobalID
    }

    public init(store: PersistentStore) {
        self.store = store
    }

    /// Whether anything is waiting to be saved.
    public var hasChanges: Bool {
        !insertedIDs.isEmpty || !deletedIDs.isEmpty || !pendingPairs.isEmpty || !pendingPositions.isEmpty || registered.values.contains { $0.hasChanges }
    }

    /// Inserts a new object. With `key`, its global ID is `<entity>/<key>` (a natural key);
    /// inserting a key that is alive already throws `StoreError.objectExists`.
    @discardableResult
    public func insert(_ entityName: String, key: String? = nil) throws -> ManagedObject {
        try followHandover()
        let inserted = try insertableEntity(entityName)
        let entity = inserted.entity
        let id = try key.map { try Self.naturalID(entity: entity.name, key: $0) } ?? GlobalID(entity: entityName)
        // Registered first, so the ID is hashed once for the check and the insertion; put back
        // as it was when the insert is refused.
        let object = ManagedObject(id: id, entity: entity, context: self, saved: nil, layout: inserted.layout)
        if let existing = registered.updateValue(object, forKey: id) {
            if !existing.isDeleted {
                registered[id] = existing
                throw StoreError.objectExists(id)
            }
        } else if key != nil {
            // Only a natural key can name an object the store has: a generated key is a random
            // UUID, and the save's insert would find a row of it anyway.
            let isAlive: Bool
            do { isAlive = try store.isAlive(id) } catch { registered[id] = nil; throw error }
            if isAlive {
                registered[id] = nil
                throw StoreError.objectExists(id)
            }
        }
        if !deletedIDs.isEmpty, deletedIDs.remove(id) != nil { deletionOrder.removeAll { $0 == id } }
        // An object inserted, deleted and inserted again in this context keeps its first place:
        // listed twice, it made two records of the same object in the log.
        if insertedIDs.insert(id).inserted { insertionOrder.append(id) }
        return object
    }

    /// The entity `insert` makes objects of: the last one asked for is kept, since a large
    /// save inserts many objects of few entities (the model's lookup copied it each time).
    private func insertableEntity(_ name: String) throws -> InsertedEntity {
        if let last = lastInsertedEntity, last.store === store, last.entity.name == name { return last }
        let entity = try store.model.entity(named: name)
        guard !entity.isAbstract else { throw ModelError.abstractEntity(name) }
        // One layout per entity and store, so the merge and the log writer, which work out
        // where a layout's values go once per layout met, do it once even when entities alternate.
        let layout: AttributeLayout
        if let known = attributeLayouts[name], known.store === store {
            layout = known.layout
        } else {
            layout = AttributeLayout(names: entity.attributes.map(\.name))
            attributeLayouts[name] = (store, layout)
        }
        let inserted = InsertedEntity(store: store, entity: entity, layout: layout)
        lastInsertedEntity = inserted
        return inserted
    }

    /// A class, so that checking it copies no description (a tuple of them was copied whole).
    final class InsertedEntity {
        let store: PersistentStore
        let entity: EntityDescription
        /// The names of `entity.attributes`: new objects hold their values by this index.
        let layout: AttributeLayout

        init(store: PersistentStore, entity: EntityDescription, layout: AttributeLayout) {
            self.store = store
            self.entity = entity
            self.layout = layout
        }
    }

    /// `GlobalID(entity:key:)` for an entity of the model, whose name the model checked: an
    /// ASCII key is checked on its bytes at once; any other goes through every check (and
    /// throws its error).
    private static func naturalID(entity: String, key: String) throws -> GlobalID {
        var key = key, entity = entity
        // The text `<entity>/<key>` is written in one go into a string of its size.
        let text: String? = key.withUTF8 { keyBytes in
            guard keyBytes.allSatisfy({ $0 < 0x80 }), GlobalID.isValidASCIIKey(keyBytes) else { return nil }
            return entity.withUTF8 { entityBytes in
                String(unsafeUninitializedCapacity: entityBytes.count + 1 + keyBytes.count) { buffer in
                    _ = UnsafeMutableBufferPointer(rebasing: buffer[..<entityBytes.count]).initialize(from: entityBytes)
                    buffer[entityBytes.count] = UInt8(ascii: "/")
                    _ = UnsafeMutableBufferPointer(rebasing: buffer[(entityBytes.count + 1)...]).initialize(from: keyBytes)
                    return buffer.count
                }
            }
        }
        guard let text else { return try GlobalID(entity: entity, key: key) }
        return GlobalID(checkedEntity: entity, description: text)
    }

    /// The object with `id` as this context sees it, or `nil` if it is not alive.
    public func object(_ id: GlobalID) throws -> ManagedObject? {
        try followHandover()
        if let object = registered[id] { return object.isDeleted ? nil : object }
        guard let snapshot = try store.snapshot(of: id) else { return nil }
        let object = ManagedObject(id: id, entity: try store.model.entity(named: id.entity), context: self, saved: snapshot)
        registered[id] = object
        return object
    }

    /// The saved objects matching `request`, as this context sees them.
    public func fetch(_ request: FetchRequest) throws -> [ManagedObject] {
        try followHandover()
        return try store.fetch(request).compactMap { snapshot in
            if let object = registered[snapshot.id] { return object.isDeleted ? nil : object }
            let object = ManagedObject(id: snapshot.id, entity: try store.model.entity(named: snapshot.id.entity), context: self, saved: snapshot)
            registered[snapshot.id] = object
            return object
        }
    }

    /// Marks an object for deletion; the delete rules run at save.
    public func delete(_ object: ManagedObject) {
        guard !deletedIDs.contains(object.id) else { return }
        deletedIDs.insert(object.id)
        deletionOrder.append(object.id)
    }

    /// Forgets every unsaved change.
    public func rollback() {
        registered.removeAll()
        insertedIDs.removeAll()
        insertionOrder.removeAll()
        deletedIDs.removeAll()
        deletionOrder.removeAll()
        pendingPairs.removeAll()
        pairOrder.removeAll()
        deferredErrors.removeAll()
        toManyRead.removeAll()
        pendingPositions.removeAll()
    }

    /// Drops cached state so the next reads see the store (e.g. after an import).
    public func refreshAll() {
        for (id, object) in registered where !object.hasChanges && !insertedIDs.contains(id) && !deletedIDs.contains(id) {
            registered[id] = nil
        }
    }

    // MARK: To-many relationships

    /// `recordingRead: false` for reads the app did not make (validation at save): they must
    /// not become what a merge policy compares the store with.
    func targets(of relationship: RelationshipDescription, of object: ManagedObject, recordingRead: Bool = true) throws -> [GlobalID] {
        let stored = Set(object.saved == nil ? [] : try store.targets(of: relationship.name, of: object.id))
        var result = stored
        // What the context read is what a merge policy later compares with the store.
        let key = ToManyKey(object: object.id, relationship: relationship.name)
        if recordingRead, object.saved != nil, toManyRead[key] == nil, case .pairTable = store.model.storage(of: relationship, in: object.entity) {
            toManyRead[key] = stored
        }
        switch store.model.storage(of: relationship, in: object.entity) {
        case let .derivedFromInverse(inverse):
            for candidate in registered.values where store.model.isKind(candidate.entity.name, of: relationship.destination) {
                guard let change = candidate.changedToOne[inverse] else { continue }
                if change == object.id { result.insert(candidate.id) } else { result.remove(candidate.id) }
            }
        case let .pairTable(owner, name, selfIsSource):
            for (change, present) in pendingPairs where change.owner == owner && change.relationship == name {
                let (mine, theirs) = selfIsSource ? (change.source, change.target) : (change.target, change.source)
                guard mine == object.id else { continue }
                if present { result.insert(theirs) } else { result.remove(theirs) }
            }
        case .toOneColumn:
            break
        }
        let members = result.subtracting(deletedIDs).sorted()
        guard relationship.isOrdered else { return members }
        return try positions(of: members, in: relationship, of: object).map(\.member)
    }

    /// `members` of an ordered to-many of `object` with their keys (unsaved ones first), in order.
    func positions(of members: [GlobalID], in relationship: RelationshipDescription, of object: ManagedObject) throws -> [MemberPosition] {
        let stored = object.saved == nil ? [:] : try store.positions(of: relationship.name, of: object.id)
        let pending = pendingPositions[ToManyKey(object: object.id, relationship: relationship.name)] ?? [:]
        return members.map { member in
            if let key = pending[member] { return MemberPosition(member: member, key: key, stamp: nil) }
            return stored[member] ?? MemberPosition(member: member, key: nil, stamp: nil)
        }.sorted()
    }

    /// Gives `member` of an ordered to-many of `object` the position `key` (a conflict's loser restored).
    package func setPosition(_ key: String, of member: GlobalID, in relationship: String, of object: ManagedObject) throws {
        guard let description = object.entity.relationship(relationship), description.isToMany, description.isOrdered, OrderKey.isValid(key) else {
            throw RelationshipError.invalidPosition(key: key, entity: object.entity.name, relationship: relationship)
        }
        pendingPositions[ToManyKey(object: object.id, relationship: relationship), default: [:]][member] = key
    }

    /// Gives `member` the position at `index` among the other members of an ordered to-many
    /// (`nil`: after the last), a key between its new neighbours'.
    func place(_ member: GlobalID, in relationship: RelationshipDescription, of object: ManagedObject, at index: Int?) throws {
        let current = try targets(of: relationship, of: object, recordingRead: false).filter { $0 != member }
        let others = try positions(of: current, in: relationship, of: object)
        let index = index ?? others.count
        guard (0...others.count).contains(index) else {
            throw RelationshipError.indexOutOfRange(index: index, upperBound: others.count, relationship: relationship.name, object: object.id)
        }
        let lower = index > 0 ? others[index - 1].key : nil
        let upper = index < others.count ? others[index].key : nil
        let key = OrderKey.between(lower, upper, peer: store.peerID)
        pendingPositions[ToManyKey(object: object.id, relationship: relationship.name), default: [:]][member] = key
    }

    func changeToMany(_ relationshipName: String, of object: ManagedObject, target: GlobalID, present: Bool) throws {
        let relationship = try object.relationship(relationshipName, toMany: true)
        guard store.model.isKind(target.entity, of: relationship.destination) else {
            throw RelationshipError.wrongDestination(entity: object.entity.name, relationship: relationshipName, destination: relationship.destination, target: target)
        }
        switch store.model.storage(of: relationship, in: object.entity) {
        case let .derivedFromInverse(inverse):
            guard let other = try self.object(target) else { throw StoreError.objectNotFound(target) }
            if present {
                try other.setTarget(object.id, of: inverse)
            } else if try other.target(of: inverse) == object.id {
                try other.setTarget(nil, of: inverse)
            }
        case let .pairTable(owner, name, selfIsSource):
            if present, registered[target] == nil, try !store.isAlive(target) { throw StoreError.objectNotFound(target) }
            let key = ToManyKey(object: object.id, relationship: relationshipName)
            if toManyRead[key] == nil {
                toManyRead[key] = Set(object.saved == nil ? [] : try store.targets(of: relationshipName, of: object.id))
            }
            let change = PairChange(owner: owner, relationship: name, source: selfIsSource ? object.id : target, target: selfIsSource ? target : object.id)
            if pendingPairs.updateValue(present, forKey: change) == nil { pairOrder.append(change) }
        case .toOneColumn:
            break
        }
    }
}
