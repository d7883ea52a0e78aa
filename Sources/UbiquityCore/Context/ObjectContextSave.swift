// Turning a context's changes into one local transaction: delete rules, validation, whole
// merge groups, pair changes attached to their owning side.
extension ObjectContext {
    /// Saves every change as one local transaction and returns its log, or `nil` when there
    /// was nothing to save. On error nothing is saved and the changes stay in the context.
    ///
    /// A save that meets its store being handed over (the initial import finishing) waits for
    /// the new store and saves there.
    @discardableResult
    public func save() throws -> TransactionLog? {
        try followHandover()
        do {
            return try saveOnce()
        } catch StoreError.retired where (try? store.successor()) != nil {
            try followHandover()
            return try saveOnce()
        }
    }

    private func saveOnce() throws -> TransactionLog? {
        if let error = deferredErrors.first { throw error }
        guard hasChanges else {
            resolvedConflicts = []
            return nil
        }
        try resolveConflicts()
        try resolveUniquenessCollisions()
        // The merge policy may have dropped every change (rollback, store trump): nothing to log.
        guard hasChanges else { return nil }
        let doomed = try deletionClosure()

        var inserted: [ChangeRecord] = []
        var updates: [GlobalID: ChangeRecord] = [:]
        var updateOrder: [GlobalID] = []
        inserted.reserveCapacity(insertionOrder.count)
        var plan: InsertPlan?
        for id in insertionOrder where doomed.isEmpty || !doomed.contains(id) {
            guard let object = registered[id] else { continue }
            if plan?.entity != object.entity.name || plan?.layout !== object.changedValues.layout {
                plan = InsertPlan(object.entity, layout: object.changedValues.layout)
            }
            inserted.append(try insertRecord(for: object, plan: plan!))
        }
        // Filtered before sorting: a large save of new objects has none to sort.
        for object in registered.values.filter({ $0.saved != nil && $0.hasChanges }).sorted(by: { $0.id < $1.id })
        where !doomed.contains(object.id) && !insertedIDs.contains(object.id) {
            updates[object.id] = try updateRecord(for: object)
            updateOrder.append(object.id)
        }
        for change in pairOrder {
            guard let present = pendingPairs[change], !doomed.contains(change.source), !doomed.contains(change.target) else { continue }
            let added = present ? [change.target] : [], removed = present ? [] : [change.target]
            if let index = inserted.firstIndex(where: { $0.id == change.source }) {
                inserted[index].relationships[change.relationship] = merged(inserted[index].relationships[change.relationship], added, removed)
            } else {
                if updates[change.source] == nil {
                    updates[change.source] = ChangeRecord(id: change.source)
                    updateOrder.append(change.source)
                }
                updates[change.source]!.relationships[change.relationship] = merged(updates[change.source]!.relationships[change.relationship], added, removed)
            }
        }
        // Placements in ordered to-many relationships ride in the record of the object holding the order.
        for (key, placed) in pendingPositions.sorted(by: { ($0.key.object, $0.key.relationship) < ($1.key.object, $1.key.relationship) }) {
            guard !doomed.contains(key.object) else { continue }
            let kept = placed.filter { !doomed.contains($0.key) }
            guard !kept.isEmpty else { continue }
            if let index = inserted.firstIndex(where: { $0.id == key.object }) {
                inserted[index].positions[key.relationship] = kept
            } else {
                if updates[key.object] == nil {
                    updates[key.object] = ChangeRecord(id: key.object)
                    updateOrder.append(key.object)
                }
                updates[key.object]!.positions[key.relationship] = kept
            }
        }
        let deleted = deletionOrderClosure(doomed).filter { !insertedIDs.contains($0) }
        try validateTargets(doomed: doomed)
        try validateRelationships(doomed: doomed)

        guard let (log, changes) = try store.commitLocal(inserted: inserted, updated: updateOrder.compactMap { updates[$0] },
                                                          deleted: deleted, format: logFormat) else {
            rollback()
            return nil
        }
        // The context now mirrors the store: forget pending state and re-read saved objects lazily.
        rollback()
        didSave?(log, changes)
        return log
    }

    private func merged(_ existing: RelationshipChange?, _ added: [GlobalID], _ removed: [GlobalID]) -> RelationshipChange {
        guard case let .toMany(oldAdded, oldRemoved)? = existing else { return .toMany(added: added, removed: removed) }
        return .toMany(added: oldAdded + added, removed: oldRemoved + removed)
    }

    /// Every object deleted by this save: the ones marked, plus cascades. Throws for deny.
    private func deletionClosure() throws -> Set<GlobalID> {
        var doomed = deletedIDs
        var work = deletionOrder
        var denials: [(GlobalID, String, [GlobalID])] = []
        while let id = work.popLast() {
            guard let object = try registered[id] ?? objectIgnoringDeletion(id) else { continue }
            for relationship in object.entity.relationships where relationship.deleteRule != .nullify && relationship.deleteRule != .noAction {
                let related = relationship.isToMany
                    ? try targets(of: relationship, of: object)
                    : (changedOrSavedTarget(object, relationship.name)).map { [$0] } ?? []
                switch relationship.deleteRule {
                case .cascade:
                    for target in related where doomed.insert(target).inserted { work.append(target) }
                case .deny:
                    if !related.isEmpty { denials.append((id, relationship.name, related)) }
                case .nullify, .noAction:
                    break
                }
            }
        }
        for (id, relationship, related) in denials {
            let remaining = related.filter { !doomed.contains($0) }
            if !remaining.isEmpty { throw StoreError.deleteDenied(object: id, relationship: relationship, count: remaining.count) }
        }
        return doomed
    }

    /// Deleted objects in a stable order: the marked ones first, then cascades sorted.
    private func deletionOrderClosure(_ doomed: Set<GlobalID>) -> [GlobalID] {
        let marked = deletionOrder.filter { doomed.contains($0) }
        return marked + doomed.subtracting(marked).sorted()
    }

    private func objectIgnoringDeletion(_ id: GlobalID) throws -> ManagedObject? {
        guard let snapshot = try store.snapshot(of: id) else { return nil }
        let object = ManagedObject(id: id, entity: try store.model.entity(named: id.entity), context: self, saved: snapshot)
        registered[id] = object
        return object
    }

    private func changedOrSavedTarget(_ object: ManagedObject, _ relationship: String) -> GlobalID? {
        object.changedToOne[relationship] ?? object.saved?.toOne[relationship] ?? nil
    }

    /// What `insertRecord` needs of an entity, made once per save and entity rather than per
    /// object: whether each attribute has rules beyond its kind, and the to-ones all cleared
    /// (the relationships of every new object that sets none, one dictionary shared by all).
    struct InsertPlan {
        /// What `validate` reads of an attribute without rules.
        struct Kind {
            let type: AttributeType
            let isOptional: Bool
            let allowsExternalStorage: Bool
            let hasRules: Bool
        }

        let entity: String
        /// The layout of the new objects' values this plan is for (`nil`: values by name).
        let layout: AttributeLayout?
        let names: [String]
        let kinds: [Kind]
        let clearedToOnes: [String: RelationshipChange]

        init(_ entity: EntityDescription, layout: AttributeLayout?) {
            self.entity = entity.name
            self.layout = layout
            names = entity.attributes.map(\.name)
            kinds = entity.attributes.map {
                Kind(type: $0.type, isOptional: $0.isOptional, allowsExternalStorage: $0.allowsExternalBinaryDataStorage, hasRules: !$0.validation.isEmpty)
            }
            var cleared: [String: RelationshipChange] = [:]
            for relationship in entity.relationships where !relationship.isToMany { cleared[relationship.name] = .toOne(nil) }
            clearedToOnes = cleared
        }

        /// The index of attribute `name`: a short scan of the model's own name strings (they
        /// compare at once) rather than a hash of the name.
        func index(of name: String) -> Int? {
            names.count <= 32 ? names.firstIndex(of: name) : nil
        }
    }

    private func insertRecord(for object: ManagedObject, plan: InsertPlan) throws -> ChangeRecord {
        guard object.saved == nil else { return try insertRecord(for: object, reading: ChangeRecord(id: object.id)) }
        if let layout = plan.layout, layout.names.count == plan.names.count { return try laidOutInsertRecord(for: object, layout: layout, plan: plan) }
        var record = ChangeRecord(id: object.id)
        // A new object's values are the ones set and the defaults of the others.
        var values = object.changedValues.dictionary
        let attributes = object.entity.attributes
        if values.count < attributes.count {
            values.reserveCapacity(attributes.count)
            for attribute in attributes where values[attribute.name] == nil { values[attribute.name] = .some(attribute.defaultValue) }
        }
        // Each value is checked beside its attribute: an attribute without rules needs only
        // `validate`'s first two checks (a value, of its kind).
        var valid = true
        for (name, value) in values {
            guard let index = plan.index(of: name) else { valid = false; break }
            let kind = plan.kinds[index]
            if kind.hasRules {
                do { try attributes[index].validate(value, entity: plan.entity) } catch { valid = false; break }
            } else if let value {
                do {
                    try AttributeDescription.validateKind(value, type: kind.type, allowsExternalStorage: kind.allowsExternalStorage, property: name, entity: plan.entity)
                } catch { valid = false; break }
            } else if !kind.isOptional {
                valid = false
                break
            }
        }
        // A value that fails is found again in attribute order, so the error is the first one's.
        if !valid { for attribute in attributes { try attribute.validate(values[attribute.name] ?? nil, entity: object.entity.name) } }
        record.values = values
        record.relationships = toOneChanges(of: object, plan: plan)
        return record
    }

    /// `insertRecord` of a new object whose values lie by index of `layout` (its entity's
    /// attributes, as `plan`'s): the record starts from the object's own array (shared, not
    /// copied, when every value is set) and adds the defaults; it is laid out the same way.
    private func laidOutInsertRecord(for object: ManagedObject, layout: AttributeLayout, plan: InsertPlan) throws -> ChangeRecord {
        let attributes = object.entity.attributes
        var values = object.changedValues.byIndex
        if object.changedValues.count < attributes.count {
            if values.isEmpty { values = Array(repeating: .none, count: attributes.count) }
            for index in values.indices { if case .none = values[index] { values[index] = .some(attributes[index].defaultValue) } }
        }
        // Each value is checked beside its attribute: an attribute without rules needs only
        // `validate`'s first two checks (a value, of its kind).
        var valid = true
        for index in values.indices {
            let kind = plan.kinds[index], value = values[index] ?? nil
            if kind.hasRules {
                do { try attributes[index].validate(value, entity: plan.entity) } catch { valid = false; break }
            } else if let value {
                do {
                    try AttributeDescription.validateKind(value, type: kind.type, allowsExternalStorage: kind.allowsExternalStorage,
                                                          property: plan.names[index], entity: plan.entity)
                } catch { valid = false; break }
            } else if !kind.isOptional {
                valid = false
                break
            }
        }
        // A value that fails is found again in attribute order, so the error is the first one's.
        if !valid { for index in attributes.indices { try attributes[index].validate(values[index] ?? nil, entity: object.entity.name) } }
        var record = ChangeRecord(id: object.id, layout: layout, values: values)
        record.relationships = toOneChanges(of: object, plan: plan)
        return record
    }

    /// A new object's to-one relationships as its insert record carries them: every one, set or cleared.
    private func toOneChanges(of object: ManagedObject, plan: InsertPlan) -> [String: RelationshipChange] {
        if object.changedToOne.isEmpty { return plan.clearedToOnes }
        var changes: [String: RelationshipChange] = [:]
        for relationship in object.entity.relationships where !relationship.isToMany {
            changes[relationship.name] = .toOne(changedOrSavedTarget(object, relationship.name))
        }
        return changes
    }

    /// `insertRecord` of an inserted object that holds a saved state: every value read as the context sees it.
    private func insertRecord(for object: ManagedObject, reading record: ChangeRecord) throws -> ChangeRecord {
        var record = record
        for attribute in object.entity.attributes {
            let value = try object.value(for: attribute.name)
            try attribute.validate(value, entity: object.entity.name)
            record.values[attribute.name] = .some(value)
        }
        for relationship in object.entity.relationships where !relationship.isToMany {
            record.relationships[relationship.name] = .toOne(changedOrSavedTarget(object, relationship.name))
        }
        return record
    }

    private func updateRecord(for object: ManagedObject) throws -> ChangeRecord {
        var record = ChangeRecord(id: object.id)
        var names = Set(object.changedValues.names)
        // A change to one member of a merge group logs the whole group.
        for group in object.entity.mergeGroups where !names.isDisjoint(with: group) { names.formUnion(group) }
        for name in names.sorted() {
            let value = try object.value(for: name)
            if let attribute = object.entity.attribute(name) { try attribute.validate(value, entity: object.entity.name) }
            record.values[name] = .some(value)
        }
        for (name, target) in object.changedToOne { record.relationships[name] = .toOne(target) }
        return record
    }
}
