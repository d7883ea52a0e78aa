/// How a context's save treats objects that changed in the store since the context read them
/// (Core Data's merge policies). See Docs/MergePolicies.md for the outcome per conflict kind.
public enum MergePolicy: Sendable {
    /// The save fails with every conflict listed; nothing is saved (`NSErrorMergePolicy`).
    case error
    /// Property by property, the store's changes win over the context's (`NSMergeByPropertyStoreTrumpMergePolicy`).
    case propertyStoreTrump
    /// Property by property, the context's changes win over the store's (`NSMergeByPropertyObjectTrumpMergePolicy`).
    case propertyObjectTrump
    /// The context's whole view of each object is written, changed properties or not (`NSOverwriteMergePolicy`).
    case overwrite
    /// The context's changes to conflicting objects are discarded (`NSRollbackMergePolicy`).
    case rollback
    /// A resolver decides per conflict.
    case custom(@Sendable (MergeConflict) -> MergeResolution)
}

/// An object a context changed (or deleted) that changed in the store underneath.
public struct MergeConflict: Sendable, CustomStringConvertible {
    public enum Kind: String, Sendable {
        /// Both changed it.
        case updated
        /// The context changed it; the store deleted it.
        case deletedInStore
        /// The context deleted it; the store changed it.
        case deletedInContext
        /// The context inserted an object holding a uniqueness constraint's values of this one
        /// (`changes`: the new object's values; `snapshot` and `persisted`: this one's). The new
        /// object becomes this one; the policy decides which values it keeps.
        case uniqueness
    }

    public let object: GlobalID
    public let kind: Kind
    /// The values the context read (attributes and to-one targets as global ID strings).
    public let snapshot: [String: AttributeValue?]
    /// The values in the store now; empty when the store deleted the object.
    public let persisted: [String: AttributeValue?]
    /// The context's unsaved values of the properties it changed.
    public let changes: [String: AttributeValue?]
    /// To-many relationships the context changed that also changed in the store: name →
    /// (targets when the context first touched it, targets in the store now).
    public let toMany: [String: (read: [GlobalID], persisted: [GlobalID])]
    /// Row versions: when the context read the object, and now (`nil`: deleted).
    public let cachedVersion: Int64
    public let persistedVersion: Int64?

    public var description: String {
        var text = "\(object): \(kind.rawValue) (version \(cachedVersion) → \(persistedVersion.map(String.init) ?? "deleted"))"
        for name in Set(snapshot.keys).union(persisted.keys).sorted() where snapshot[name] != persisted[name] || changes[name] != nil {
            func show(_ value: AttributeValue??) -> String { (value ?? nil).map { "\($0)" } ?? "nil" }
            text += "; \(name): read \(show(snapshot[name])), store \(kind == .deletedInStore ? "deleted" : show(persisted[name]))"
            if let change = changes[name] { text += ", context \(show(change))" }
        }
        for (name, sets) in toMany.sorted(by: { $0.key < $1.key }) {
            text += "; \(name): read \(sets.read.count) object(s), store \(sets.persisted.count)"
        }
        return text
    }
}

/// What a custom resolver decides for one conflict.
public enum MergeResolution: Sendable {
    /// The context's changes win (as `propertyObjectTrump` would).
    case keepContext
    /// The store wins (as `rollback` would).
    case keepStore
    /// These values are saved (properties not named keep the store's); the object stays alive.
    case values([String: AttributeValue?])
}
