import Foundation

// Deletes in the merge (observed-remove): each delete leaves a tombstone, and only an insert
// whose author had seen every tombstone of the object brings it back.
extension MergeEngine {
    func applyDelete(_ id: GlobalID, writer: TransactionWriter, changes: inout ObjectChanges) throws {
        let table = try table(id.entity)
        let existing = try loadRow(table, id)
        var row = existing ?? table.emptyRow(id: id)
        let wasAlive = row[EntityTable.aliveColumn] == .integer(1)
        try database.run("INSERT OR IGNORE INTO Z_TOMBSTONES (gid, peer, number, stamp) VALUES (?, ?, ?, ?)",
                         [.text(id.description), .text(writer.peer), .integer(writer.number), writer.stampText])
        // Writes the deleter had not seen lose to the delete; each is recorded.
        for slot in table.slots {
            guard let current = try slotWriter(row, table, slot),
                  writer.isConcurrent(withWriteOf: current.stamp.peerID, number: current.number) else { continue }
            for attribute in slot.attributes {
                let column = table.attributeColumn[attribute]!
                try recordConflict(id: id, property: attribute, kind: .delete, winner: (.null, writer.stamp, writer.number),
                                   loser: (row[column], current.stamp, current.number), at: writer.appliedAt)
            }
            if let relationship = slot.relationship {
                try recordConflict(id: id, property: relationship, kind: .delete, winner: (.null, writer.stamp, writer.number),
                                   loser: (row[table.toOneColumn[relationship]!], current.stamp, current.number), at: writer.appliedAt)
            }
        }
        row[EntityTable.aliveColumn] = .integer(0)
        if case let .integer(version) = row[EntityTable.versionColumn] { row[EntityTable.versionColumn] = .integer(version + 1) }
        try writeRow(table, row, existing: existing)
        changes.note(id, wasAlive: wasAlive, isAlive: false, changed: true)
    }

    /// Whether `knowledge` has seen every delete of `id` applied here.
    func tombstonesCovered(_ id: GlobalID, by knowledge: KnowledgeVector) throws -> Bool {
        let statement = try database.statement("SELECT peer, number FROM Z_TOMBSTONES WHERE gid = ?")
        try statement.bind(id.description, at: 1)
        while try statement.step() {
            if !knowledge.covers(peer: statement.string(0) ?? "", number: statement.int64(1)) { return false }
        }
        return true
    }
}
