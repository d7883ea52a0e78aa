import Foundation
import UbiquityCore

/// What an import resolver decides for a concurrent overwrite found during an import.
public enum ImportResolution: Sendable, Equatable {
    /// The winner by stamp stays (what happens with no resolver).
    case keepWinner
    /// The losing value is saved again, as a new local transaction.
    case useLoser
    /// This value is saved, as a new local transaction.
    case use(AttributeValue?)
}

extension UbiquityPeer {
    /// Saves the losing value of conflict `id` again, as a new local transaction that every peer
    /// imports (so the loser wins everywhere from now on); a uniqueness loser's value goes to
    /// the object it was merged into. Returns the transaction's log.
    @discardableResult
    public func restoreLoser(ofConflict id: Int64) throws -> TransactionLog? {
        try refuseUnlessWritable("restore a conflict")
        guard let conflict = try store.conflict(id) else { throw ConflictResolutionError.unknownConflict(id) }
        // An object that lost under a uniqueness constraint is gone: its value goes to the object it became.
        let object = try store.uniquenessWinner(of: conflict.object)
        return try save(conflict.loserValue, as: conflict.property, of: object, kind: conflict.kind == .uniqueness ? .update : conflict.kind)
    }

    /// Writes `value` into `property` of `object` in a new local transaction.
    func save(_ value: ConflictValue, as property: String, of object: GlobalID, kind: ConflictRecord.Kind) throws -> TransactionLog? {
        guard kind == .update else {
            throw ConflictResolutionError.deleteConflict(object: object, property: property)
        }
        let context = newContext()
        context.mergePolicy = .propertyObjectTrump
        guard let target = try context.object(object) else { throw StoreError.objectNotFound(object) }
        // A member's position in an ordered to-many (`songs[Song/a].position`) holds its key.
        if let position = ConflictRecord.position(in: property), case let .attribute(.string(key)?) = value {
            try context.setPosition(key, of: try GlobalID(position.member), in: position.relationship, of: target)
            return try context.save()
        }
        switch value {
        case let .member(present):
            guard let pair = ConflictRecord.pair(in: property) else { throw ModelError.unknownProperty(entity: object.entity, property: property) }
            let other = try GlobalID(pair.target)
            if present { try target.add(other, to: pair.relationship) } else { try target.remove(other, from: pair.relationship) }
        case let .target(other):
            try target.setTarget(other, of: property)
        case let .attribute(attribute):
            try target.setValue(attribute, for: property)
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
                _ = try save(try Self.conflictValue(value, like: conflict.loserValue), as: conflict.property, of: conflict.object, kind: .update)
            }
        }
    }

    /// A resolver's value in the form of the property it is for: a to-one takes a global ID's
    /// text, a to-many pair "present" (anything else removes the target).
    private static func conflictValue(_ value: AttributeValue?, like shape: ConflictValue) throws -> ConflictValue {
        switch shape {
        case .attribute: return .attribute(value)
        case .target: return .target(try value?.stringValue.map { try GlobalID($0) })
        case .member: return .member(value == .string("present"))
        }
    }
}
