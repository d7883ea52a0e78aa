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
            if !deleted.isEmpty, deleted.remove(id) != nil {
                journal(id, .deleted, added: false)
                if updated.insert(id).inserted { journal(id, .updated, added: true) }
            } else if inserted.insert(id).inserted {
                journal(id, .inserted, added: true)
            }
        case (true, false):
            if !updated.isEmpty, updated.remove(id) != nil { journal(id, .updated, added: false) }
            if !inserted.isEmpty, inserted.remove(id) != nil {
                journal(id, .inserted, added: false)
            } else if deleted.insert(id).inserted {
                journal(id, .deleted, added: true)
            }
        case (true, true) where changed:
            if inserted.isEmpty || !inserted.contains(id), updated.insert(id).inserted { journal(id, .updated, added: true) }
        default:
            break
        }
    }

    // MARK: Undoing one log's notes

    /// An import notes every log of a batch straight into the batch's sets (a set per log,
    /// merged after it, cost a set growth and a second hash of every ID); a log the store
    /// refuses is taken back out by undoing what its notes did, last first.
    enum Kind { case inserted, updated, deleted }
    struct Step {
        let id: GlobalID
        let kind: Kind
        let added: Bool
    }
    /// The steps since `startJournal()`; `nil` when nothing is journalled (every other caller).
    private(set) var steps: [Step]?

    /// Starts (or restarts, keeping its storage) the journal of one log's notes.
    mutating func startJournal() {
        if steps == nil { steps = [] } else { steps!.removeAll(keepingCapacity: true) }
    }

    /// Undoes every note since `startJournal()`.
    mutating func undoJournal() {
        guard let steps else { return }
        for step in steps.reversed() {
            switch (step.kind, step.added) {
            case (.inserted, true): inserted.remove(step.id)
            case (.inserted, false): inserted.insert(step.id)
            case (.updated, true): updated.remove(step.id)
            case (.updated, false): updated.insert(step.id)
            case (.deleted, true): deleted.remove(step.id)
            case (.deleted, false): deleted.insert(step.id)
            }
        }
        self.steps!.removeAll(keepingCapacity: true)
    }

    /// Stops journalling (the journal is no part of the answer).
    mutating func endJournal() { steps = nil }

    private mutating func journal(_ id: GlobalID, _ kind: Kind, added: Bool) {
        if steps != nil { steps!.append(Step(id: id, kind: kind, added: added)) }
    }

    /// Equal when the same objects changed alike (a journal in progress does not count).
    public static func == (lhs: ObjectChanges, rhs: ObjectChanges) -> Bool {
        lhs.inserted == rhs.inserted && lhs.updated == rhs.updated && lhs.deleted == rhs.deleted
    }
}
