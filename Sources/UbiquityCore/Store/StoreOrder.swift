import Foundation

// Ordered to-many relationships: each member's position is a slot of its own (source, member),
// won by the larger stamp like every slot (`MergeEngine+Relationships.swift` merges them);
// membership merges as the relationship's storage says.
extension PersistentStore {
    /// The order table of `relationship` of `entity`, when it is ordered.
    func orderTable(of relationship: String, in entity: String) -> OrderTable? { merge.orderTable(of: relationship, in: entity) }

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
