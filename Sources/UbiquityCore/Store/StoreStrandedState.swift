import Foundation
import UbiquityPlist

/// What a store holds from transactions that a baseline it must adopt lacks and whose logs are
/// gone from the container (a file-sync tool kept an older, concurrent baseline than the one
/// they were collected under): the slots they last wrote, the objects they deleted and the
/// to-many pairs they set, each with its stamp. Adopting the baseline alone would drop them on
/// this store and, since nobody can import them again, everywhere; so they are taken before
/// the adoption and what still wins is saved again afterwards (`PersistentStore.keep`).
package struct StrandedState {
    struct Slot {
        let id: GlobalID
        let slot: Int
        let stamp: Stamp
        let values: [String: AttributeValue?]
        let toOne: (name: String, target: GlobalID?)?
    }

    struct Pair {
        let table: PairTable
        let source: GlobalID
        let target: GlobalID
        let present: Bool
        let stamp: Stamp
    }

    /// The transactions, as a knowledge vector of the peers they belong to (each peer's from
    /// the baseline's number + 1 up to this one).
    let transactions: KnowledgeVector
    var slots: [Slot] = []
    /// Every value of each live object one of the slots belongs to, to insert it again when
    /// the baseline never had it.
    var objects: [GlobalID: ChangeRecord] = [:]
    var deletions: [(id: GlobalID, stamp: Stamp)] = []
    var pairs: [Pair] = []

    package var isEmpty: Bool { slots.isEmpty && deletions.isEmpty && pairs.isEmpty }
}

extension PersistentStore {
    /// What this store holds from the transactions of `peers` above `baseline` (see
    /// `StrandedState`).
    package func strandedState(of peers: KnowledgeVector, above baseline: KnowledgeVector) throws -> StrandedState {
        func isStranded(_ peer: String, _ number: Int64) -> Bool { number > baseline[peer] && number <= peers[peer] }
        return try locked {
            var state = StrandedState(transactions: peers)
            var writers: [Int64: Stamp] = [:]
            let selectWriters = try database.statement("SELECT id, peer, number, stamp FROM Z_WRITERS")
            while try selectWriters.step() {
                guard let peer = selectWriters.string(1), isStranded(peer, selectWriters.int64(2)),
                      let stamp = selectWriters.string(3).flatMap(Stamp.init) else { continue }
                writers[selectWriters.int64(0)] = stamp
            }
            if !writers.isEmpty {
                let ids = "(" + writers.keys.map(String.init).joined(separator: ",") + ")"
                for table in tables.values.sorted(by: { $0.tableName < $1.tableName }) where !table.slots.isEmpty {
                    let condition = table.slots.map { SQLiteDatabase.quote("w_" + $0.name) + " IN " + ids }.joined(separator: " OR ")
                    let select = try database.statement("SELECT * FROM \(table.quotedName) WHERE alive = 1 AND (\(condition))")
                    while try select.step() {
                        let row = (0..<Int32(table.columns.count)).map { select.value($0) }
                        guard case let .text(gid) = row[EntityTable.gidColumn], let id = GlobalID(stored: gid) else { continue }
                        let snapshot = try snapshot(row: row, table: table, id: id)
                        var whole = ChangeRecord(id: id, values: snapshot.values)
                        for (name, column) in table.toOneColumn { whole.relationships[name] = .toOne(Self.target(row[column])) }
                        state.objects[id] = whole
                        for (index, layout) in table.slotLayouts.enumerated() {
                            guard case let .integer(writer) = row[layout.writer], let stamp = writers[writer] else { continue }
                            state.slots.append(StrandedState.Slot(
                                id: id, slot: index, stamp: stamp,
                                values: Dictionary(uniqueKeysWithValues: layout.attributes.map { ($0.name, snapshot.values[$0.name] ?? nil) }),
                                toOne: layout.toOne.map { ($0.name, Self.target(row[$0.column])) }))
                        }
                    }
                }
            }
            let tombstones = try database.statement("SELECT gid, peer, number, stamp FROM Z_TOMBSTONES")
            while try tombstones.step() {
                guard let peer = tombstones.string(1), isStranded(peer, tombstones.int64(2)),
                      let id = tombstones.string(0).flatMap({ try? GlobalID($0) }), let stamp = tombstones.string(3).flatMap(Stamp.init) else { continue }
                state.deletions.append((id, stamp))
            }
            for table in pairTables.values.sorted(by: { $0.tableName < $1.tableName }) {
                let select = try database.statement("SELECT source, target, present, stamp, number FROM \(table.quotedName)")
                while try select.step() {
                    guard let stamp = select.string(3).flatMap(Stamp.init), isStranded(stamp.peerID, select.int64(4)),
                          let source = select.string(0).flatMap({ try? GlobalID($0) }),
                          let target = select.string(1).flatMap({ try? GlobalID($0) }) else { continue }
                    state.pairs.append(StrandedState.Pair(table: table, source: source, target: target, present: select.int64(2) == 1, stamp: stamp))
                }
            }
            return state
        }
    }

    /// Saves again, as one local transaction, what of `state` still wins over the state this
    /// store holds now (just adopted from a baseline): a slot whose stamp is later than its
    /// current writer's, an object the baseline never had, a deletion of an object still alive,
    /// a pair the baseline holds older or not at all. Returns the changes saved (empty when
    /// the baseline already held everything).
    package func keep(_ state: StrandedState, format: PlistFormat) throws -> ObjectChanges {
        var updated: [GlobalID: ChangeRecord] = [:], inserted: [GlobalID: ChangeRecord] = [:], deleted: [GlobalID] = []
        try locked {
            for slot in state.slots {
                let table = try table(slot.id.entity)
                guard let row = try loadRow(table, slot.id) else {
                    inserted[slot.id] = state.objects[slot.id]
                    continue
                }
                guard row[EntityTable.aliveColumn] == .integer(1) else { continue }   // a deletion the baseline holds wins
                let layout = table.slotLayouts[slot.slot]
                if case let .integer(writer) = row[layout.writer], let current = try slotWriter(id: writer), current.stamp >= slot.stamp { continue }
                var record = updated[slot.id] ?? ChangeRecord(id: slot.id)
                for (name, value) in slot.values { record.values[name] = value }
                if let toOne = slot.toOne { record.relationships[toOne.name] = .toOne(toOne.target) }
                updated[slot.id] = record
            }
            for deletion in state.deletions where inserted[deletion.id] == nil {
                guard try isAlive(deletion.id) else { continue }
                deleted.append(deletion.id)
                updated[deletion.id] = nil
            }
            for pair in state.pairs {
                let select = try database.statement(pair.table.selectPairSQL)
                try select.bind([.text(pair.source.description), .text(pair.target.description)])
                let current = try select.step() ? select.string(1).flatMap(Stamp.init) : nil
                select.reset()
                guard current.map({ $0 < pair.stamp }) ?? true, !deleted.contains(pair.source) else { continue }
                var record = inserted[pair.source] ?? updated[pair.source] ?? ChangeRecord(id: pair.source)
                var (added, removed): ([GlobalID], [GlobalID]) = ([], [])
                if case let .toMany(a, r)? = record.relationships[pair.table.relationship] { (added, removed) = (a, r) }
                if pair.present { added.append(pair.target) } else { removed.append(pair.target) }
                record.relationships[pair.table.relationship] = .toMany(added: added, removed: removed)
                if inserted[pair.source] != nil { inserted[pair.source] = record } else { updated[pair.source] = record }
            }
        }
        let sorted = { (records: [GlobalID: ChangeRecord]) in records.values.sorted { $0.id.description < $1.id.description } }
        return try commitLocal(inserted: sorted(inserted), updated: sorted(updated), deleted: deleted.sorted { $0.description < $1.description },
                               format: format)?.changes ?? ObjectChanges()
    }

    private static func target(_ value: SQLiteValue) -> GlobalID? {
        if case let .text(text) = value { return try? GlobalID(text) }
        return nil
    }
}
