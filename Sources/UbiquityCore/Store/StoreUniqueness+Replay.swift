import Foundation

// A transaction saved in another store of this device (a fallback's, replayed into the account
// store at the handover) meets the uniqueness constraints as a save made here would: its author
// never saw this store's objects, yet the replayed transaction is new here and knows them all,
// so the merge across devices would keep both objects (Docs/SyncSemantics.md, uniqueness constraints).
extension PersistentStore {
    /// The records of a replayed transaction with each insert that holds the constrained values
    /// of a live object here made a write of that object (its values written over the
    /// holder's, as the `overwrite` merge policy does), and every record naming it redirected;
    /// `merged` carries the loser → holder pairs from one replayed transaction to the next.
    /// An insert is left as it is when a reference of the transaction to it could not name the
    /// holder's entity, or when the holder is one of `replayed` (the IDs any replayed
    /// transaction inserts). Nothing is noted in the store: the merge is the replayed
    /// transaction's own, as a merge at save is the save's.
    package func replayingOntoLiveHolders(inserted: [ChangeRecord], updated: [ChangeRecord], deleted: [GlobalID],
                                          replayed: Set<GlobalID>,
                                          merged: inout [GlobalID: GlobalID]) throws -> (inserted: [ChangeRecord], updated: [ChangeRecord], deleted: [GlobalID]) {
        guard model.hasUniquenessConstraints else { return (inserted, updated, deleted) }
        // A write of an object merged in an earlier replayed transaction goes to its holder too.
        var inserted = inserted.map { held(Self.redirect($0, merged)) }, updated = updated.map { held(Self.redirect($0, merged)) }
        var deleted = deleted.map { merged[$0] ?? $0 }
        var index = 0
        while index < inserted.count {
            let record = inserted[index]
            // A holder the replay inserts is written by its own insert, so two objects the other
            // store kept apart stay two; and a loser's holder is never merged itself.
            guard let holder = try liveHolder(of: record, excluding: Set(deleted)),
                  !replayed.contains(holder), canFollow(record.id, to: holder, in: inserted + updated) else { index += 1; continue }
            merged[record.id] = holder
            inserted.remove(at: index)
            let redirect = [record.id: holder]
            inserted = inserted.map { held(Self.redirect($0, redirect)) }
            updated = [held(Self.redirect(record, redirect))] + updated.map { held(Self.redirect($0, redirect)) }
            deleted = deleted.map { $0 == record.id ? holder : $0 }
        }
        return (inserted, updated, deleted)
    }

    /// `record` with only the properties its object's entity has: the write of an object of
    /// another entity (a sub-entity) merged into it carries some the log may not name.
    private func held(_ record: ChangeRecord) -> ChangeRecord {
        guard let entity = model.entity(record.id.entity) else { return record }
        return ChangeRecord(id: record.id, values: record.values.filter { entity.attribute($0.key) != nil },
                            relationships: record.relationships.filter { entity.relationship($0.key) != nil },
                            positions: record.positions.filter { entity.relationship($0.key) != nil })
    }

    /// The live object, other than the record's, holding the values of one of its constraints.
    private func liveHolder(of record: ChangeRecord, excluding deleted: Set<GlobalID>) throws -> GlobalID? {
        for constraint in model.uniquenessConstraints(of: record.id.entity) {
            var values: [ConstrainedValue] = []
            for property in constraint.properties {
                if case let .some(.some(value)) = record.value(of: property) {
                    values.append(.attribute(value))
                } else if case let .toOne(target?)? = record.relationships[property] {
                    values.append(.target(target))
                } else {
                    break
                }
            }
            guard values.count == constraint.properties.count else { continue }
            if let holder = try objects(holding: values, of: constraint).first(where: { $0 != record.id && !deleted.contains($0) }) { return holder }
        }
        return nil
    }

    /// Whether every reference `records` make to `loser` may name `holder` instead.
    private func canFollow(_ loser: GlobalID, to holder: GlobalID, in records: [ChangeRecord]) -> Bool {
        guard loser.entity != holder.entity else { return true }
        for record in records {
            for (name, change) in record.relationships {
                let names: Bool = switch change {
                case let .toOne(target): target == loser
                case let .toMany(added, removed): added.contains(loser) || removed.contains(loser)
                }
                guard names || record.id == loser, let relationship = model.entity(record.id.entity)?.relationship(name) else { continue }
                if names, !model.isKind(holder.entity, of: relationship.destination) { return false }
                if record.id == loser, model.entity(holder.entity)?.relationship(name) == nil { return false }
            }
        }
        return true
    }

    /// `record` with every ID `map` names replaced.
    private static func redirect(_ record: ChangeRecord, _ map: [GlobalID: GlobalID]) -> ChangeRecord {
        guard !map.isEmpty else { return record }
        var record = record
        record.id = map[record.id] ?? record.id
        for (name, change) in record.relationships {
            switch change {
            case let .toOne(target?): record.relationships[name] = .toOne(map[target] ?? target)
            case let .toMany(added, removed): record.relationships[name] = .toMany(added: added.map { map[$0] ?? $0 }, removed: removed.map { map[$0] ?? $0 })
            case .toOne(nil): break
            }
        }
        for (name, placed) in record.positions {
            record.positions[name] = Dictionary(placed.map { (map[$0.key] ?? $0.key, $0.value) }) { a, _ in a }
        }
        return record
    }
}
