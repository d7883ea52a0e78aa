// Finding the objects that changed underneath a context, and applying its merge policy by
// rewriting the context's pending changes before they are saved (Docs/SyncSemantics.md).
extension ObjectContext {
    /// Detects conflicts and resolves them by the merge policy; throws for `.error`.
    func resolveConflicts() throws {
        resolvedConflicts = []
        let conflicts = try detectConflicts()
        guard !conflicts.isEmpty else { return }
        if case .error = mergePolicy { throw MergeConflictsError(conflicts: conflicts) }
        resolvedConflicts = conflicts
        for conflict in conflicts {
            switch mergePolicy {
            case .error: break
            case .rollback: try keepStore(conflict)
            case .propertyStoreTrump: try storeTrump(conflict)
            case .propertyObjectTrump: try keepContext(conflict, overwrite: false)
            case .overwrite: try keepContext(conflict, overwrite: true)
            case let .custom(resolver):
                switch resolver(conflict) {
                case .keepContext: try keepContext(conflict, overwrite: false)
                case .keepStore: try keepStore(conflict)
                case let .values(values): try useValues(values, conflict)
                }
            }
        }
    }

    private func detectConflicts() throws -> [MergeConflict] {
        var conflicts: [MergeConflict] = []
        // Only what the context changed can conflict: its changed and deleted objects, and the
        // to-many relationships it added to or removed from.
        let changedToMany = toManyRead.keys.filter { key in pendingPairs.keys.contains { otherEnd(of: $0, for: key.object, relationship: key.relationship) != nil } }
        var touched = Set(registered.values.filter { $0.saved != nil && ($0.hasChanges || deletedIDs.contains($0.id)) }.map(\.id))
        touched.formUnion(changedToMany.map(\.object))
        for id in touched.sorted() {
            guard let object = registered[id], let saved = object.saved, !insertedIDs.contains(id) else { continue }
            let current = try store.snapshot(of: id)
            var toMany: [String: (read: [GlobalID], persisted: [GlobalID])] = [:]
            for key in changedToMany where key.object == id {
                let read = toManyRead[key] ?? []
                let now = current == nil ? [] : try store.targets(of: key.relationship, of: id)
                if Set(now) != read { toMany[key.relationship] = (read.sorted(), now) }
            }
            let rowMoved = current?.version != saved.version && (object.hasChanges || deletedIDs.contains(id) || current == nil)
            guard rowMoved || !toMany.isEmpty else { continue }
            let kind: MergeConflict.Kind = current == nil ? .deletedInStore : (deletedIDs.contains(id) ? .deletedInContext : .updated)
            conflicts.append(MergeConflict(
                object: id, kind: kind, snapshot: Self.flatten(saved), persisted: current.map(Self.flatten) ?? [:],
                changes: object.changedValues.dictionary.merging(object.changedToOne.mapValues { $0.map { AttributeValue.string($0.description) } }) { a, _ in a },
                toMany: toMany, cachedVersion: saved.version, persistedVersion: current?.version))
        }
        return conflicts
    }

    package static func flatten(_ snapshot: ObjectSnapshot) -> [String: AttributeValue?] {
        snapshot.values.merging(snapshot.toOne.mapValues { $0.map { AttributeValue.string($0.description) } }) { a, _ in a }
    }

    /// The store wins: the context's changes to the object (and its delete) are dropped.
    private func keepStore(_ conflict: MergeConflict) throws {
        guard let object = registered[conflict.object] else { return }
        object.changedValues.removeAll()
        object.changedToOne.removeAll()
        undoDelete(conflict.object)
        dropPairChanges(of: conflict.object)
        object.saved = try store.snapshot(of: conflict.object)
    }

    /// Per property, the store's changes win; the context's other changes stay.
    private func storeTrump(_ conflict: MergeConflict) throws {
        guard let object = registered[conflict.object] else { return }
        switch conflict.kind {
        case .deletedInStore, .deletedInContext:
            try keepStore(conflict)
        case .uniqueness:
            break   // found after this pass (ObjectContextUniqueness.swift)
        case .updated:
            for name in object.changedValues.names where conflict.persisted[name] != conflict.snapshot[name] {
                object.changedValues[name] = nil
            }
            for name in Array(object.changedToOne.keys) where conflict.persisted[name] != conflict.snapshot[name] {
                object.changedToOne[name] = nil
            }
            for relationship in conflict.toMany.keys { dropPairChanges(of: conflict.object, relationship: relationship) }
            object.saved = try store.snapshot(of: conflict.object)
        }
    }

    /// The context wins. With `overwrite`, every property of the context's view is written, not
    /// only the changed ones. An object the store deleted is inserted again.
    private func keepContext(_ conflict: MergeConflict, overwrite: Bool) throws {
        guard let object = registered[conflict.object] else { return }
        if conflict.kind == .deletedInContext { return }   // the delete stands
        if overwrite || conflict.kind == .deletedInStore {
            for attribute in object.entity.attributes where object.changedValues[attribute.name] == nil {
                object.changedValues[attribute.name] = .some(object.saved?.values[attribute.name] ?? nil)
            }
            for relationship in object.entity.relationships where !relationship.isToMany && object.changedToOne[relationship.name] == nil {
                object.changedToOne[relationship.name] = .some(object.saved?.toOne[relationship.name] ?? nil)
            }
        }
        if conflict.kind == .deletedInStore {
            insertedIDs.insert(conflict.object)
            insertionOrder.append(conflict.object)
        }
        // To-many: the context's view (what it read plus its changes) replaces the store's set.
        for (relationship, sets) in conflict.toMany {
            let mine = contextView(of: conflict.object, relationship: relationship, read: Set(sets.read))
            dropPairChanges(of: conflict.object, relationship: relationship)
            for target in mine.subtracting(sets.persisted) { try changeToMany(relationship, of: object, target: target, present: true) }
            for target in Set(sets.persisted).subtracting(mine) { try changeToMany(relationship, of: object, target: target, present: false) }
        }
    }

    private func useValues(_ values: [String: AttributeValue?], _ conflict: MergeConflict) throws {
        try keepStore(conflict)
        guard let object = try self.object(conflict.object) ?? registered[conflict.object] else { return }
        for (name, value) in values {
            if object.entity.attribute(name) != nil {
                try object.setValue(value ?? nil, for: name)
            } else if object.entity.relationship(name)?.isToMany == false {
                try object.setTarget(value?.stringValue.flatMap { try? GlobalID($0) }, of: name)
            }
        }
    }

    private func undoDelete(_ id: GlobalID) {
        if deletedIDs.remove(id) != nil { deletionOrder.removeAll { $0 == id } }
    }

    /// What the context means a to-many to hold: what it read, with its own adds and removes.
    private func contextView(of id: GlobalID, relationship: String, read: Set<GlobalID>) -> Set<GlobalID> {
        var result = read
        for (change, present) in pendingPairs {
            guard let other = otherEnd(of: change, for: id, relationship: relationship) else { continue }
            if present { result.insert(other) } else { result.remove(other) }
        }
        return result
    }

    private func dropPairChanges(of id: GlobalID, relationship: String? = nil) {
        for change in Array(pendingPairs.keys) where relationship.map({ otherEnd(of: change, for: id, relationship: $0) != nil })
            ?? (change.source == id || change.target == id) {
            pendingPairs[change] = nil
            pairOrder.removeAll { $0 == change }
        }
        toManyRead = toManyRead.filter { $0.key.object != id || (relationship != nil && $0.key.relationship != relationship) }
    }

    /// The other end of a pending pair change, seen from `id`'s `relationship`, if it is one.
    private func otherEnd(of change: PairChange, for id: GlobalID, relationship: String) -> GlobalID? {
        guard let entity = store.model.entity(id.entity), let description = entity.relationship(relationship),
              case let .pairTable(owner, name, selfIsSource) = store.model.storage(of: description, in: entity),
              change.owner == owner, change.relationship == name else { return nil }
        if selfIsSource { return change.source == id ? change.target : nil }
        return change.target == id ? change.source : nil
    }
}
