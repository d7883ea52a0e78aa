import Foundation

// What a context asks of the store to keep a uniqueness constraint at save: the live objects
// of a constraint's scope that hold given values (Docs/SyncSemantics.md, uniqueness constraints).
extension PersistentStore {
    /// The live objects of `constraint`'s scope (its entity and sub-entities) whose constrained
    /// properties hold exactly `values` (one per property, in the constraint's order; a to-one
    /// as its target's global ID), sorted by global ID.
    public func objects(holding values: [ConstrainedValue], of constraint: UniquenessConstraint) throws -> [GlobalID] {
        try locked {
            var found: [GlobalID] = []
            for table in try familyTables(of: constraint.scope) {
                var conditions: [String] = [], arguments: [SQLiteValue] = []
                for (property, value) in zip(constraint.properties, values) {
                    if let column = table.attributeColumn[property], case let .attribute(attribute) = value {
                        conditions.append("\(SQLiteDatabase.quote(table.columns[column])) = ?")
                        arguments.append(attribute.sqliteValue)
                    } else if let column = table.toOneColumn[property], case let .target(target) = value {
                        conditions.append("\(SQLiteDatabase.quote(table.columns[column])) = ?")
                        arguments.append(.text(target.description))
                    } else {
                        // A property the table does not store (a derived attribute): never equal.
                        conditions = []
                        break
                    }
                }
                guard !conditions.isEmpty else { continue }
                let sql = "SELECT gid FROM \(table.quotedName) WHERE alive = 1 AND " + conditions.joined(separator: " AND ")
                found += try database.statement(sql).bind(arguments).rows { try GlobalID($0.string(0) ?? "") }
            }
            return found.sorted()
        }
    }

    /// The object `id` became when it lost to another under a uniqueness constraint (`id` when
    /// it never lost): where a loser's value recorded in the conflict history is restored.
    package func uniquenessWinner(of id: GlobalID) throws -> GlobalID {
        try locked { try merge.winner(of: id) }
    }
}
