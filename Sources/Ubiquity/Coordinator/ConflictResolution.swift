import Foundation

/// What an import resolver decides for a concurrent overwrite found during an import.
public enum ImportResolution: Sendable, Equatable {
    /// The winner by stamp stays (what happens with no resolver).
    case keepWinner
    /// The losing value is saved again, as a new local transaction.
    case useLoser
    /// This value is saved, as a new local transaction.
    case use(AttributeValue?)
}

extension PersistentStore {
    /// The stored (typed) loser of a conflict, for restoring it.
    func conflictLoser(_ id: Int64) throws -> (object: GlobalID, property: String, kind: String, loser: SQLiteValue)? {
        try locked {
            let statement = try database.statement("SELECT gid, property, kind, loser_value FROM Z_CONFLICTS WHERE id = ?")
            try statement.bind([.integer(id)])
            guard try statement.step() else { return nil }
            return (try GlobalID(statement.string(0) ?? ""), statement.string(1) ?? "", statement.string(2) ?? "", statement.value(3))
        }
    }

    /// The largest conflict ID recorded so far.
    func lastConflictID() throws -> Int64 {
        try locked {
            let statement = try database.statement("SELECT coalesce(max(id), 0) FROM Z_CONFLICTS")
            return try statement.step() ? statement.int64(0) : 0
        }
    }
}

extension UbiquityPeer {
    /// Saves the losing value of conflict `id` again, as a new local transaction that every peer
    /// imports (so the loser wins everywhere from now on). Returns the transaction's log.
    @discardableResult
    public func restoreLoser(ofConflict id: Int64) throws -> TransactionLog? {
        guard let conflict = try store.conflictLoser(id) else { throw StoreError.validation("no conflict \(id) in the history") }
        return try save(conflict.loser, as: conflict.property, of: conflict.object, kind: conflict.kind)
    }

    /// Writes `value` (a stored value) into `property` of `object` in a new local transaction.
    func save(_ value: SQLiteValue, as property: String, of object: GlobalID, kind: String) throws -> TransactionLog? {
        guard kind == "update" else {
            throw StoreError.validation("conflict on \(object).\(property) was with a delete; restore the object by inserting it again")
        }
        let context = newContext()
        context.mergePolicy = .propertyObjectTrump
        guard let target = try context.object(object) else { throw StoreError.objectNotFound(object) }
        if let open = property.firstIndex(of: "["), property.hasSuffix("]") {
            // A to-many pair: `relationship[Target/key]`, the loser "present" or "absent".
            let relationship = String(property[..<open])
            let other = try GlobalID(String(property[property.index(after: open)..<property.index(before: property.endIndex)]))
            if value == .text("present") { try target.add(other, to: relationship) } else { try target.remove(other, from: relationship) }
        } else if let attribute = target.entity.attribute(property) {
            try target.setValue(AttributeValue(sqlite: value, type: attribute.type), for: property)
        } else if target.entity.relationship(property) != nil {
            if case let .text(text) = value { try target.setTarget(try GlobalID(text), of: property) } else { try target.setTarget(nil, of: property) }
        } else {
            throw ModelError.unknownProperty(entity: object.entity, property: property)
        }
        return try context.save()
    }

    /// Runs the configured import resolver over the conflicts recorded since `after`.
    func resolveImportConflicts(after: Int64) throws {
        guard let resolver = configuration.importResolver else { return }
        for conflict in try store.conflicts() where conflict.id > after && conflict.kind == .update {
            switch resolver(conflict) {
            case .keepWinner: continue
            case .useLoser: _ = try restoreLoser(ofConflict: conflict.id)
            case let .use(value):
                let stored = value?.sqliteValue ?? .null
                _ = try save(stored, as: conflict.property, of: conflict.object, kind: "update")
            }
        }
    }
}
