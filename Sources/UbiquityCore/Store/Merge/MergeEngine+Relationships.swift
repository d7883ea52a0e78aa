import Foundation

// Relationships in the merge: to-many pairs (each (source, target) a slot of its own), to-manys
// stored on their inverse's to-one, and the positions of ordered to-many members (each
// member's position a slot of its own too).
extension MergeEngine {
    /// Applies a record's to-many changes (pairs, or to-one writes on the targets for a to-many
    /// derived from its inverse); `true` when something changed.
    func applyToManyChanges(_ record: ChangeRecord, table: EntityTable, writer: TransactionWriter, changes: inout ObjectChanges) throws -> Bool {
        var changed = false
        for (name, change) in record.relationships {
            guard case let .toMany(added, removed) = change, let relationship = table.entity.relationship(name) else { continue }
            switch model.storage(of: relationship, in: table.entity) {
            case let .pairTable(owner, ownerRelationship, selfIsSource):
                let pairs = pairTables["\(owner).\(ownerRelationship)"]!
                for (targets, present) in [(added, true), (removed, false)] {
                    for target in targets {
                        let (source, destination) = selfIsSource ? (record.id, target) : (target, record.id)
                        if try applyPair(pairs, source: source, target: destination, present: present, writer: writer) {
                            changed = true
                            changes.note(target, wasAlive: true, isAlive: true, changed: true)
                        }
                    }
                }
            case let .derivedFromInverse(inverse):
                // Stored on the targets' to-one; apply there with this transaction's stamp.
                for target in added {
                    try apply(ChangeRecord(id: target, relationships: [inverse: .toOne(record.id)]), isInsert: false, writer: writer, changes: &changes)
                }
                for target in removed {
                    let targetTable = try self.table(target.entity)
                    if let targetRow = try loadRow(targetTable, target), targetRow[targetTable.toOneColumn[inverse]!] == .text(record.id.description) {
                        try apply(ChangeRecord(id: target, relationships: [inverse: .toOne(nil)]), isInsert: false, writer: writer, changes: &changes)
                    }
                }
                changed = changed || !added.isEmpty || !removed.isEmpty
            case .toOneColumn:
                continue
            }
        }
        return changed
    }


    func applyPair(_ pairs: PairTable, source: GlobalID, target: GlobalID, present: Bool, writer: TransactionWriter) throws -> Bool {
        let select = try database.statement(pairs.selectPairSQL)
        try select.bind([.text(source.description), .text(target.description)])
        var currentPresent: Bool?
        if try select.step(), let stampText = select.string(1), let stamp = Stamp(stampText) {
            let number = select.int64(2)
            currentPresent = select.int64(0) == 1
            // A tie (one transaction writing the pair twice, through a uniqueness loser): present wins.
            let incomingWins = writer.stamp > stamp || (writer.stamp == stamp && present && currentPresent == false)
            if writer.isConcurrent(withWriteOf: stamp.peerID, number: number), currentPresent != present {
                let mine = ConflictSide(value: .member(present), stamp: writer.stamp, number: writer.number)
                let theirs = ConflictSide(value: .member(currentPresent!), stamp: stamp, number: number)
                try conflicts.record(object: source, property: "\(pairs.relationship)[\(target)]", kind: .update,
                                     winner: incomingWins ? mine : theirs, loser: incomingWins ? theirs : mine, recorded: writer.appliedAt)
            }
            guard incomingWins else { return false }
        }
        try database.run(pairs.writePairSQL, [.text(source.description), .text(target.description), .integer(present ? 1 : 0), writer.stampText, .integer(writer.number)])
        return currentPresent != present
    }

    /// Applies a record's positions; `true` when a member's position changed.
    func applyPositions(_ record: ChangeRecord, table: EntityTable, writer: TransactionWriter) throws -> Bool {
        var changed = false
        for (name, keys) in record.positions.sorted(by: { $0.key < $1.key }) {
            guard let order = orderTable(of: name, in: table.entity.name) else { continue }
            for (member, key) in keys.sorted(by: { $0.key < $1.key }) {
                let select = try database.statement(order.selectSQL)
                try select.bind([.text(record.id.description), .text(member.description)])
                if try select.step(), let stampText = select.string(1), let stamp = Stamp(stampText) {
                    let current = select.string(0) ?? "", number = select.int64(2)
                    select.reset()
                    // A tie (one transaction placing the member twice, through a uniqueness loser): the larger key.
                    let incomingWins = writer.stamp > stamp || (writer.stamp == stamp && key > current)
                    if writer.isConcurrent(withWriteOf: stamp.peerID, number: number), current != key {
                        let mine = ConflictSide(value: .attribute(.string(key)), stamp: writer.stamp, number: writer.number)
                        let theirs = ConflictSide(value: .attribute(.string(current)), stamp: stamp, number: number)
                        try conflicts.record(object: record.id, property: "\(name)[\(member)].position", kind: .update,
                                             winner: incomingWins ? mine : theirs, loser: incomingWins ? theirs : mine, recorded: writer.appliedAt)
                    }
                    guard incomingWins else { continue }
                    if current != key { changed = true }
                } else {
                    select.reset()
                    changed = true
                }
                try database.run(order.writeSQL, [.text(record.id.description), .text(member.description), .text(key), writer.stampText, .integer(writer.number)])
            }
        }
        return changed
    }
}
