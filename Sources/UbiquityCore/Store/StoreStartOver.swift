import Foundation
import UbiquityPlist

// A store that starts over in another content epoch and keeps what it holds: two removals of
// the content made at the same time clear only what came before either (Docs/Lifecycle.md,
// "Two removals at once"), so what a store saved after its own removal is saved again into
// the content of the removal that won.
extension PersistentStore {
    /// `snapshot` as a record that inserts it again: its values, its to-ones, the pairs of the
    /// to-manys it owns, and the positions of its ordered to-manys' members.
    package func reinsertionRecord(of snapshot: ObjectSnapshot) throws -> ChangeRecord {
        var record = ChangeRecord(id: snapshot.id, values: snapshot.values)
        for (name, value) in snapshot.toOne { record.relationships[name] = .toOne(value) }
        let entity = try model.entity(named: snapshot.id.entity)
        for relationship in entity.relationships where relationship.isToMany {
            if case .pairTable(_, _, true) = model.storage(of: relationship, in: entity) {
                let targets = try targets(of: relationship.name, of: snapshot.id)
                if !targets.isEmpty { record.relationships[relationship.name] = .toMany(added: targets, removed: []) }
            }
            guard relationship.isOrdered else { continue }
            let live = Set(try targets(of: relationship.name, of: snapshot.id))
            var keys: [GlobalID: String] = [:]
            for (member, position) in try positions(of: relationship.name, of: snapshot.id) where live.contains(member) {
                if let key = position.key { keys[member] = key }
            }
            if !keys.isEmpty { record.positions[relationship.name] = keys }
        }
        return record
    }

    /// Empties the store into `removal` and, when `carrying`, saves again every object it held
    /// as new local transactions of that content (`batch` objects each), all in one SQLite
    /// transaction: a crash leaves either the old content or the new one with all of it.
    /// Returns how many objects were carried.
    package func startOver(in removal: ContentRemoval, carrying: Bool, format: PlistFormat, batch: Int = 500) throws -> Int {
        if isReadOnly { throw StoreError.readOnly }
        let (carried, changes) = try locked {
            if let retirement { throw StoreError.retired(retirement.reason) }
            let savedClock = clock
            do {
                return try database.transaction {
                    var records: [ChangeRecord] = []
                    if carrying {
                        for entity in model.entities where !entity.isAbstract {
                            for snapshot in try fetch(FetchRequest(entity: entity.name, includesSubentities: false)) {
                                records.append(try reinsertionRecord(of: snapshot))
                            }
                        }
                    }
                    try resetToEmptyLocked()
                    try setContentEpoch(removal)
                    var changes = ObjectChanges()
                    for start in stride(from: 0, to: records.count, by: batch) {
                        let part = Array(records[start..<min(records.count, start + batch)])
                        changes.merge(try commitLocalLocked(inserted: part, updated: [], deleted: [], format: format).changes)
                    }
                    return (records.count, changes)
                }
            } catch {
                try forgetRolledBack(clock: savedClock)
                throw error
            }
        }
        changeObservers.notify(.reset)
        if !changes.isEmpty { changeObservers.notify(.committed(changes, local: true)) }
        return carried
    }
}
