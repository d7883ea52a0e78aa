import UbiquityCore

/// How a fetched result set changed between two moments (Core Data's
/// `NSFetchedResultsControllerDelegate` changes, with both indexes given).
///
/// Indexes follow a table view's batch update: `deleted` and `moved.from` index the results
/// before the change; `inserted` and `moved.to` the results after it. Removing the deleted and
/// moved objects (from the old results), then inserting the inserted and moved ones at their new
/// indexes in ascending order, gives the new results (`applied(to:)`). As in Core Data, an
/// object moves only when a change to its own sort keys changed its place (objects around it coming and going
/// shift indexes but are no moves), and as few move as can be. An object whose saved values or
/// to-one targets changed is `updated` (both indexes given) unless it moved; a moved one says
/// whether it changed too. A change only to the row's version (a write of an equal value, a
/// to-many change) is not reported.
public struct FetchedResultsChange: Sendable, Equatable, CustomStringConvertible {
    /// What made the results change.
    public enum Cause: String, Sendable, Equatable {
        /// A local save (any context of this store).
        case saved
        /// Other peers' changes were imported (logs, or a baseline joined).
        case imported
        /// The store was replaced (the initial import's handover, an account switch) or emptied
        /// (content removed).
        case storeChanged
        /// `refresh()` was called.
        case refreshed
    }

    public struct Insertion: Sendable, Equatable {
        public let id: GlobalID
        /// Index in the new results.
        public let index: Int
    }

    public struct Deletion: Sendable, Equatable {
        public let id: GlobalID
        /// Index in the old results.
        public let index: Int
    }

    public struct Update: Sendable, Equatable {
        public let id: GlobalID
        /// Index in the old results.
        public let index: Int
        /// Index in the new results (differs from `index` when objects before it came or went).
        public let newIndex: Int
    }

    public struct Move: Sendable, Equatable {
        public let id: GlobalID
        /// Index in the old results.
        public let from: Int
        /// Index in the new results.
        public let to: Int
        /// Whether its values or to-one targets changed too.
        public let isUpdated: Bool
    }

    public let cause: Cause
    /// In ascending order of index.
    public let inserted: [Insertion]
    public let deleted: [Deletion]
    public let updated: [Update]
    /// In ascending order of `to`.
    public let moved: [Move]
    /// The results after the change.
    public let results: [ObjectSnapshot]

    public var isEmpty: Bool { inserted.isEmpty && deleted.isEmpty && updated.isEmpty && moved.isEmpty }

    /// `old` with this change applied (the IDs of `results`, when `old` is what it changed).
    public func applied(to old: [GlobalID]) -> [GlobalID] {
        let removed = Set(deleted.map(\.index) + moved.map(\.from))
        var ids = old.enumerated().filter { !removed.contains($0.offset) }.map(\.element)
        let added = (inserted.map { ($0.index, $0.id) } + moved.map { ($0.to, $0.id) }).sorted { $0.0 < $1.0 }
        for (index, id) in added { ids.insert(id, at: min(index, ids.count)) }
        return ids
    }

    public var description: String {
        "\(cause.rawValue): \(inserted.count) inserted, \(deleted.count) deleted, \(updated.count) updated, \(moved.count) moved"
    }

    /// The change from `old` to `new`, results sorted by `sortKeys` (then by ID).
    init(cause: Cause, from old: [ObjectSnapshot], to new: [ObjectSnapshot], sortKeys: [String] = []) {
        self.cause = cause
        results = new
        var oldIndex: [GlobalID: Int] = [:]
        for (index, snapshot) in old.enumerated() { oldIndex[snapshot.id] = index }
        var newIndex: [GlobalID: Int] = [:]
        for (index, snapshot) in new.enumerated() { newIndex[snapshot.id] = index }
        deleted = old.enumerated().filter { newIndex[$0.element.id] == nil }.map { Deletion(id: $0.element.id, index: $0.offset) }
        inserted = new.enumerated().filter { oldIndex[$0.element.id] == nil }.map { Insertion(id: $0.element.id, index: $0.offset) }
        // The objects in both, in their old order. Those whose sort keys did not change keep
        // their order among themselves (the sort is by those keys, then ID), so they stay; of
        // the others, the most that fit between them stay too, and the rest move. So an object
        // moves only when its own sort keys changed, and as few move as can be.
        let kept = old.enumerated().compactMap { entry in
            newIndex[entry.element.id].map { index in
                (old: entry.offset, new: index, changed: !Self.sameContent(entry.element, new[index]),
                 resorted: sortKeys.contains { entry.element.values[$0] != new[index].values[$0] })
            }
        }
        let staying = Self.staying(kept.map { (new: $0.new, changed: $0.resorted) })
        var updates: [Update] = []
        var moves: [Move] = []
        for (position, pair) in kept.enumerated() {
            let changed = pair.changed
            if staying.contains(position) {
                if changed { updates.append(Update(id: old[pair.old].id, index: pair.old, newIndex: pair.new)) }
            } else {
                moves.append(Move(id: old[pair.old].id, from: pair.old, to: pair.new, isUpdated: changed))
            }
        }
        updated = updates
        moved = moves.sorted { $0.to < $1.to }
    }

    /// What the app sees of an object: its values and to-one targets (not the store's row version).
    private static func sameContent(_ a: ObjectSnapshot, _ b: ObjectSnapshot) -> Bool {
        a.values == b.values && a.toOne == b.toOne
    }

    /// The positions of `kept` (new indexes in old order) that stay: those whose sort keys did
    /// not change on a longest increasing run (all of them, normally), then in each gap between
    /// two of those, the re-sorted ones on a longest increasing run that fits in the gap.
    static func staying(_ kept: [(new: Int, changed: Bool)]) -> Set<Int> {
        let unchanged = kept.indices.filter { !kept[$0].changed }
        var stay = Set(longestIncreasingRun(unchanged.map { kept[$0].new }).map { unchanged[$0] })
        var candidates: [Int] = []
        var lower = -1
        func closeGap(upper: Int) {
            let fitting = candidates.filter { kept[$0].new > lower && kept[$0].new < upper }
            stay.formUnion(longestIncreasingRun(fitting.map { kept[$0].new }).map { fitting[$0] })
            candidates.removeAll()
        }
        for position in kept.indices {
            if stay.contains(position) {
                closeGap(upper: kept[position].new)
                lower = kept[position].new
            } else if kept[position].changed {
                candidates.append(position)
            }
        }
        closeGap(upper: Int.max)
        return stay
    }

    /// The positions in `sequence` of one longest strictly increasing subsequence (patience
    /// sorting, O(n log n)).
    static func longestIncreasingRun(_ sequence: [Int]) -> Set<Int> {
        var tails: [Int] = []          // positions: tails[k] ends the best run of length k + 1
        var previous = [Int](repeating: -1, count: sequence.count)
        for (position, value) in sequence.enumerated() {
            var low = 0, high = tails.count
            while low < high {
                let middle = (low + high) / 2
                if sequence[tails[middle]] < value { low = middle + 1 } else { high = middle }
            }
            if low > 0 { previous[position] = tails[low - 1] }
            if low == tails.count { tails.append(position) } else { tails[low] = position }
        }
        var run = Set<Int>()
        var position = tails.last ?? -1
        while position >= 0 {
            run.insert(position)
            position = previous[position]
        }
        return run
    }
}
