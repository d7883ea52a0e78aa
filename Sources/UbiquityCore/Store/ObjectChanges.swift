/// The objects a save or an import changed, as seen by this store: inserted objects became
/// alive, deleted ones died, updated ones were alive before and after and changed.
public struct ObjectChanges: Sendable, Equatable {
    public var inserted: Set<GlobalID> = []
    public var updated: Set<GlobalID> = []
    public var deleted: Set<GlobalID> = []

    public init(inserted: Set<GlobalID> = [], updated: Set<GlobalID> = [], deleted: Set<GlobalID> = []) {
        self.inserted = inserted
        self.updated = updated
        self.deleted = deleted
    }

    public var isEmpty: Bool { inserted.isEmpty && updated.isEmpty && deleted.isEmpty }

    package mutating func merge(_ other: ObjectChanges) {
        // The first batch of an import is the whole answer: no need to replay it id by id.
        if isEmpty {
            self = other
            return
        }
        for id in other.inserted {
            if deleted.remove(id) != nil { updated.insert(id) } else { inserted.insert(id) }
        }
        for id in other.updated where !inserted.contains(id) { updated.insert(id) }
        for id in other.deleted {
            updated.remove(id)
            if inserted.remove(id) == nil { deleted.insert(id) }
        }
    }

    /// Makes room for about as many objects as a batch of logs holds (growing a set rehashes it).
    mutating func reserveCapacity(inserted: Int, updated: Int, deleted: Int) {
        self.inserted.reserveCapacity(inserted)
        self.updated.reserveCapacity(updated)
        self.deleted.reserveCapacity(deleted)
    }

    /// Records one object's before/after liveness and whether it changed.
    mutating func note(_ id: GlobalID, wasAlive: Bool, isAlive: Bool, changed: Bool) {
        // An import notes every object it applies: empty sets are not searched (each search hashes the ID).
        switch (wasAlive, isAlive) {
        case (false, true):
            if !deleted.isEmpty, deleted.remove(id) != nil { updated.insert(id) } else { inserted.insert(id) }
        case (true, false):
            if !updated.isEmpty { updated.remove(id) }
            if inserted.isEmpty || inserted.remove(id) == nil { deleted.insert(id) }
        case (true, true) where changed:
            if inserted.isEmpty || !inserted.contains(id) { updated.insert(id) }
        default:
            break
        }
    }
}
