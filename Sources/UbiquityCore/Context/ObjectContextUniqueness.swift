// Uniqueness constraints kept at save, as Core Data keeps them: an inserted object holding the
// constrained values of a live object becomes that object, its values merged by the merge
// policy (`MergePolicy.error` refuses the save); an update that makes two objects share the
// values is refused. Docs/SyncSemantics.md, uniqueness constraints.
extension ObjectContext {
    /// Values of one constraint, as a key of what this save's objects hold.
    private struct Claim: Hashable {
        let constraint: UniquenessConstraint
        let values: [ConstrainedValue]
    }

    /// Checks the save's changed and inserted objects against every constraint of their
    /// entities; models without constraints cost nothing.
    func resolveUniquenessCollisions() throws {
        let model = store.model
        guard model.hasUniquenessConstraints else { return }
        var claimed: [Claim: GlobalID] = [:]
        // Changed objects first: an insert merges into the object that holds the values after the save.
        let changed = registered.values.filter { $0.saved != nil && $0.hasChanges && !insertedIDs.contains($0.id) && !deletedIDs.contains($0.id) }
        for object in changed.sorted(by: { $0.id < $1.id }) {
            for constraint in model.uniquenessConstraints(of: object.entity.name)
            where constraint.properties.contains(where: { object.changedValues[$0] != nil || object.changedToOne[$0] != nil }) {
                guard let values = try constrainedValues(of: object, constraint) else { continue }
                let claim = Claim(constraint: constraint, values: values)
                if let holder = try self.holder(of: claim, other: object.id, claimed: claimed) {
                    throw UniquenessConstraintError.updateCollides(object: object.id, existing: holder, constraint: constraint, values: values)
                }
                claimed[claim] = object.id
            }
        }
        for id in insertionOrder where insertedIDs.contains(id) && !deletedIDs.contains(id) {
            guard let object = registered[id] else { continue }
            for constraint in model.uniquenessConstraints(of: object.entity.name) {
                guard let values = try constrainedValues(of: object, constraint) else { continue }
                let claim = Claim(constraint: constraint, values: values)
                if let holder = try self.holder(of: claim, other: id, claimed: claimed) {
                    if case .error = mergePolicy {
                        throw UniquenessConstraintError.insertCollides(object: id, existing: holder, constraint: constraint, values: values)
                    }
                    if let relationship = referenceHolderCannotTake(id, holder: holder) {
                        throw UniquenessConstraintError.insertCollidesWithOtherEntity(object: id, existing: holder, relationship: relationship)
                    }
                    try merge(object, into: holder)
                    break
                }
                claimed[claim] = id
            }
        }
    }

    /// The values `object` holds (as this context sees it) of `constraint`'s properties;
    /// `nil` when one has no value: as in SQL's unique indexes, a missing value equals none.
    private func constrainedValues(of object: ManagedObject, _ constraint: UniquenessConstraint) throws -> [ConstrainedValue]? {
        var values: [ConstrainedValue] = []
        for property in constraint.properties {
            if object.entity.attribute(property) != nil {
                guard let value = try object.value(for: property) else { return nil }
                values.append(.attribute(value))
            } else if object.entity.relationship(property)?.isToMany == false {
                guard let target = try object.target(of: property) else { return nil }
                values.append(.target(target))
            } else {
                // A derived attribute is never computed: it holds no value.
                return nil
            }
        }
        return values
    }

    /// The object other than `other` that holds `claim`'s values after this save: one of the
    /// save's own, or a live stored one this context neither deletes nor changes away.
    private func holder(of claim: Claim, other: GlobalID, claimed: [Claim: GlobalID]) throws -> GlobalID? {
        if let mine = claimed[claim], mine != other { return mine }
        for id in try store.objects(holding: claim.values, of: claim.constraint) where id != other && !deletedIDs.contains(id) {
            if let object = registered[id], try constrainedValues(of: object, claim.constraint) != claim.values { continue }
            return id
        }
        return nil
    }

    /// A relationship of this save naming the new object `loser` that could not name `holder`,
    /// an object of another entity of the constraint's scope (a sibling, or a parent lacking
    /// the relationship): as `Owner.relationship`, or `nil` when every reference can follow.
    private func referenceHolderCannotTake(_ loser: GlobalID, holder: GlobalID) -> String? {
        let model = store.model
        guard loser.entity != holder.entity else { return nil }
        func admits(_ owner: String, _ name: String) -> Bool {
            model.entity(owner)?.relationship(name).map { model.isKind(holder.entity, of: $0.destination) } ?? true
        }
        for object in registered.values.sorted(by: { $0.id < $1.id }) {
            for (name, target) in object.changedToOne where target == loser && !admits(object.entity.name, name) { return "\(object.entity.name).\(name)" }
        }
        for change in pairOrder where pendingPairs[change] != nil {
            if change.target == loser, !admits(change.owner, change.relationship) { return "\(change.owner).\(change.relationship)" }
            if change.source == loser, !model.isKind(holder.entity, of: change.owner) { return "\(change.owner).\(change.relationship)" }
        }
        for (key, placed) in pendingPositions.sorted(by: { ($0.key.object, $0.key.relationship) < ($1.key.object, $1.key.relationship) }) {
            if placed[loser] != nil, !admits(key.object.entity, key.relationship) { return "\(key.object.entity).\(key.relationship)" }
            if key.object == loser, model.entity(holder.entity)?.relationship(key.relationship) == nil { return "\(loser.entity).\(key.relationship)" }
        }
        return nil
    }

    /// The new `object` becomes `holderID`: its values merged by the merge policy, what points
    /// at it pointing at the holder, and the object itself forgotten.
    private func merge(_ object: ManagedObject, into holderID: GlobalID) throws {
        guard let holder = try registered[holderID] ?? self.object(holderID) else { return }
        let view = Dictionary(uniqueKeysWithValues: holder.entity.attributes.map { ($0.name, try? holder.value(for: $0.name)) })
            .merging(holder.entity.relationships.filter { !$0.isToMany }.map { ($0.name, (try? holder.target(of: $0.name)).map { $0.map { AttributeValue.string($0.description) } } ?? nil) }) { a, _ in a }
        let changes = object.changedValues.dictionary.merging(object.changedToOne.mapValues { $0.map { AttributeValue.string($0.description) } }) { a, _ in a }
        let conflict = MergeConflict(object: holderID, kind: .uniqueness, snapshot: view, persisted: view, changes: changes,
                                     toMany: [:], cachedVersion: holder.saved?.version ?? 0, persistedVersion: holder.saved?.version)
        resolvedConflicts.append(conflict)
        switch mergePolicy {
        case .error, .rollback:
            break
        case .propertyObjectTrump:
            try copy(object, onto: holder, every: false, onlyIntoEmpty: false)
        case .overwrite:
            try copy(object, onto: holder, every: true, onlyIntoEmpty: false)
        case .propertyStoreTrump:
            try copy(object, onto: holder, every: false, onlyIntoEmpty: true)
        case let .custom(resolver):
            switch resolver(conflict) {
            case .keepContext: try copy(object, onto: holder, every: false, onlyIntoEmpty: false)
            case .keepStore: break
            case let .values(values):
                for (name, value) in values {
                    if holder.entity.attribute(name) != nil {
                        try holder.setValue(value ?? nil, for: name)
                    } else if holder.entity.relationship(name)?.isToMany == false {
                        try holder.setTarget(value?.stringValue.flatMap { try? GlobalID($0) }, of: name)
                    }
                }
            }
        }
        repoint(object.id, to: holderID)
        registered[object.id] = nil
        insertedIDs.remove(object.id)
        insertionOrder.removeAll { $0 == object.id }
    }

    /// The new object's values written onto the holder: the ones it set (`every`: all of them,
    /// defaults too), or only where the holder has no value.
    private func copy(_ object: ManagedObject, onto holder: ManagedObject, every: Bool, onlyIntoEmpty: Bool) throws {
        for attribute in object.entity.attributes where holder.entity.attribute(attribute.name) != nil {
            guard every || object.changedValues[attribute.name] != nil else { continue }
            if onlyIntoEmpty, try holder.value(for: attribute.name) != nil { continue }
            try holder.setValue(try object.value(for: attribute.name), for: attribute.name)
        }
        for relationship in object.entity.relationships where !relationship.isToMany && holder.entity.relationship(relationship.name) != nil {
            guard every || object.changedToOne[relationship.name] != nil else { continue }
            if onlyIntoEmpty, try holder.target(of: relationship.name) != nil { continue }
            try holder.setTarget(try object.target(of: relationship.name), of: relationship.name)
        }
    }

    /// What this save makes point at `loser` points at `winner` instead: to-ones, pairs and
    /// placements in ordered to-manys.
    private func repoint(_ loser: GlobalID, to winner: GlobalID) {
        for object in registered.values {
            for (name, target) in object.changedToOne where target == loser { object.changedToOne[name] = .some(winner) }
        }
        for change in pairOrder where change.source == loser || change.target == loser {
            let present = pendingPairs.removeValue(forKey: change)
            let moved = PairChange(owner: change.owner, relationship: change.relationship,
                                   source: change.source == loser ? winner : change.source, target: change.target == loser ? winner : change.target)
            if let present, pendingPairs.updateValue(present, forKey: moved) == nil { pairOrder.append(moved) }
        }
        pairOrder.removeAll { pendingPairs[$0] == nil }
        toManyRead = toManyRead.filter { $0.key.object != loser }
        for (key, placed) in pendingPositions {
            var placed = placed
            if let position = placed.removeValue(forKey: loser) { placed[winner] = position }
            pendingPositions[key] = placed
            if key.object == loser {
                pendingPositions[key] = nil
                pendingPositions[ToManyKey(object: winner, relationship: key.relationship), default: [:]].merge(placed) { a, _ in a }
            }
        }
    }
}
