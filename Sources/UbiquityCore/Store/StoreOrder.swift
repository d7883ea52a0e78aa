import Foundation

// Ordered to-many relationships: each member's position is a slot of its own (source, member),
// won by the larger stamp like every slot; membership merges as the relationship's storage says.
extension PersistentStore {
    /// The order table of `relationship` of `entity`, when it is ordered.
    func orderTable(of relationship: String, in entity: String) -> OrderTable? {
        orderTables["\(model.declaringEntity(of: relationship, in: entity)).\(relationship)"]
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
                    let incomingWins = writer.stamp > stamp
                    if writer.isConcurrent(withWriteOf: stamp.peerID, number: number), current != key {
                        let mine: SQLiteValue = .text(key), theirs: SQLiteValue = .text(current)
                        try insertConflict(id: record.id, property: "\(name)[\(member)].position", kind: "update",
                                           winner: incomingWins ? (mine, writer.stamp, writer.number) : (theirs, stamp, number),
                                           loser: incomingWins ? (theirs, stamp, number) : (mine, writer.stamp, writer.number))
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

    /// The stored positions of the members of an ordered to-many of `id` (members no longer
    /// related included: the caller intersects with the members).
    public func positions(of relationshipName: String, of id: GlobalID) throws -> [GlobalID: MemberPosition] {
        try locked {
            guard let order = orderTable(of: relationshipName, in: id.entity) else { return [:] }
            let statement = try database.statement("SELECT target, position, stamp FROM \(order.quotedName) WHERE source = ?")
            try statement.bind(id.description, at: 1)
            var result: [GlobalID: MemberPosition] = [:]
            while try statement.step() {
                guard let member = statement.string(0).flatMap(GlobalID.init(stored:)) else { continue }
                result[member] = MemberPosition(member: member, key: statement.string(1), stamp: statement.string(2))
            }
            return result
        }
    }

    /// `members` in their order (`MemberPosition`).
    func ordered(_ members: [GlobalID], of relationshipName: String, of id: GlobalID) throws -> [GlobalID] {
        let known = try positions(of: relationshipName, of: id)
        return members.map { known[$0] ?? MemberPosition(member: $0, key: nil, stamp: nil) }.sorted().map(\.member)
    }
}
