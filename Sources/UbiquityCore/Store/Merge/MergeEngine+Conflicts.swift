import Foundation

// The concurrent overwrites the merge finds, handed to the conflict history (`ConflictHistory`)
// as typed values.
extension MergeEngine {
    func recordConflicts(id: GlobalID, table: EntityTable, row: [SQLiteValue], incoming: [(Int, SQLiteValue)],
                         incomingWins: Bool, writer: TransactionWriter, current: SlotWriter) throws {
        for (column, value) in incoming where row[column] != value {
            let property = String(table.columns[column].dropFirst(2))
            let mine = (value, writer.stamp, writer.number), theirs = (row[column], current.stamp, current.number)
            try recordConflict(id: id, property: property, kind: .update,
                               winner: incomingWins ? mine : theirs, loser: incomingWins ? theirs : mine, at: writer.appliedAt)
        }
    }

    func recordDeleteConflicts(id: GlobalID, incoming: [(Int, SQLiteValue)], writer: TransactionWriter) throws {
        let table = try table(id.entity)
        let statement = try database.statement("SELECT peer, number, stamp FROM Z_TOMBSTONES WHERE gid = ? ORDER BY stamp DESC")
        try statement.bind(id.description, at: 1)
        guard try statement.step(), let stampText = statement.string(2), let stamp = Stamp(stampText) else { return }
        let number = statement.int64(1)
        for (column, value) in incoming {
            try recordConflict(id: id, property: String(table.columns[column].dropFirst(2)), kind: .delete,
                               winner: (.null, stamp, number), loser: (value, writer.stamp, writer.number), at: writer.appliedAt)
        }
    }

    /// Records a conflict between two column values of `property` of `id`, each with the stamp
    /// and number of its writer: the history keeps them typed by the property's declaration.
    func recordConflict(id: GlobalID, property: String, kind: ConflictRecord.Kind,
                        winner: (SQLiteValue, Stamp, Int64), loser: (SQLiteValue, Stamp, Int64), at recorded: Double) throws {
        try conflicts.record(object: id, property: property, kind: kind,
                             winner: ConflictSide(value: conflicts.value(winner.0, of: property, in: id.entity), stamp: winner.1, number: winner.2),
                             loser: ConflictSide(value: conflicts.value(loser.0, of: property, in: id.entity), stamp: loser.1, number: loser.2),
                             recorded: recorded)
    }
}
