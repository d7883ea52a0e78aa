import Foundation
import UbiquityBase
import UbiquityPlist

// A constrained to-one compares by the object its target became (Docs/SyncSemantics.md,
// uniqueness constraints). A plant unique by (name, bed) was noted with the bed it named when
// inserted; when that bed loses to another, the plants of both beds with one name are one plant,
// whichever bed's insert arrived first. So each merge rewrites the noted keys that name the
// loser to name its winner, and the inserts whose keys thereby meet collide as they would had
// they arrived after the merge.
extension MergeEngine {
    /// After `loser` became `winner`: the noted inserts whose constrained to-one named the loser
    /// name the winner, and each that now meets a concurrent insert of equal values is joined
    /// with it (the lowest global ID winning), their winners' liveness settled.
    func rekeyInserts(naming loser: GlobalID, as winner: GlobalID, at recorded: Double, changes: inout ObjectChanges) throws {
        var needle: [UInt8] = [], replacement: [UInt8] = []
        CanonicalEncoding.append(.string(loser.description), to: &needle)
        CanonicalEncoding.append(.string(winner.description), to: &replacement)
        for constraint in constraints.all {
            let positions = referencePositions(in: constraint, admitting: loser, and: winner)
            guard !positions.isEmpty else { continue }
            let properties = constraint.properties.joined(separator: ",")
            let noted = try database.statement("SELECT key, gid, peer, number, knowledge FROM Z_UNIQUE WHERE scope = ? AND properties = ? AND instr(key, ?) > 0")
                .bind([.text(constraint.scope), .text(properties), .blob(needle)])
                .rows { row -> NotedInsert? in
                    guard case let .blob(key) = row.value(0), let gid = try? GlobalID(row.string(1) ?? "") else { return nil }
                    return NotedInsert(key: key, gid: gid, peer: row.string(2) ?? "", number: row.int64(3), knowledge: row.string(4) ?? "")
                }
            for insert in noted.compactMap({ $0 }) {
                guard let key = Self.key(insert.key, replacing: needle, with: replacement, at: positions) else { continue }
                try database.run("""
                    UPDATE OR IGNORE Z_UNIQUE SET key = ? WHERE scope = ? AND properties = ? AND key = ? AND gid = ? AND peer = ? AND number = ?
                    """, [.blob(key), .text(constraint.scope), .text(properties), .blob(insert.key), .text(insert.gid.description),
                          .text(insert.peer), .integer(insert.number)])
                try database.run("DELETE FROM Z_UNIQUE WHERE scope = ? AND properties = ? AND key = ? AND gid = ? AND peer = ? AND number = ?",
                                 [.text(constraint.scope), .text(properties), .blob(insert.key), .text(insert.gid.description),
                                  .text(insert.peer), .integer(insert.number)])
                var rekeyed = insert
                rekeyed.key = key
                try joinMeeting(rekeyed, of: constraint, at: recorded, changes: &changes)
            }
        }
    }

    /// The indexes of `constraint`'s to-one properties whose destination admits both objects.
    private func referencePositions(in constraint: UniquenessConstraint, admitting loser: GlobalID, and winner: GlobalID) -> [Int] {
        guard let scope = model.entity(constraint.scope) else { return [] }
        return constraint.properties.indices.filter { index in
            guard let relationship = scope.relationship(constraint.properties[index]), !relationship.isToMany else { return false }
            return model.isKind(loser.entity, of: relationship.destination) && model.isKind(winner.entity, of: relationship.destination)
        }
    }

    /// Joins the objects of the concurrent inserts noted with `insert`'s key into the lowest of
    /// them and `insert`'s object (each by the object it became).
    private func joinMeeting(_ insert: NotedInsert, of constraint: UniquenessConstraint, at recorded: Double, changes: inout ObjectChanges) throws {
        let others = try database.statement("SELECT gid, peer, number, knowledge FROM Z_UNIQUE WHERE scope = ? AND properties = ? AND key = ? AND gid <> ?")
            .bind([.text(constraint.scope), .text(constraint.properties.joined(separator: ",")), .blob(insert.key), .text(insert.gid.description)])
            .rows { row -> NotedInsert? in
                guard let gid = try? GlobalID(row.string(0) ?? "") else { return nil }
                return NotedInsert(key: insert.key, gid: gid, peer: row.string(1) ?? "", number: row.int64(2), knowledge: row.string(3) ?? "")
            }
        var group: Set<GlobalID> = [try winner(of: insert.gid)]
        for other in others.compactMap({ $0 }) where other.collides(with: insert) {
            group.insert(try winner(of: other.gid))
        }
        guard group.count > 1, let lowest = group.min() else { return }
        for loser in group.sorted() where loser != lowest {
            // An earlier join of this loop may have made this one a loser already.
            let current = try winner(of: loser)
            if current != lowest { try join(current, into: lowest, at: recorded, changes: &changes) }
        }
        try settleLiveness(of: lowest, changes: &changes)
    }

    /// `key` with each element at `positions` that is `needle` replaced by `replacement`, or
    /// `nil` when it has none there.
    static func key(_ key: [UInt8], replacing needle: [UInt8], with replacement: [UInt8], at positions: [Int]) -> [UInt8]? {
        guard var elements = CanonicalEncoding.scalarElements(ofArray: key) else { return nil }
        var replaced = false
        for position in positions where position < elements.count && elements[position].elementsEqual(needle) {
            elements[position] = replacement[...]
            replaced = true
        }
        guard replaced else { return nil }
        var bytes: [UInt8] = []
        CanonicalEncoding.appendArrayHeader(count: elements.count, to: &bytes)
        for element in elements { bytes.append(contentsOf: element) }
        return bytes
    }
}

/// One row of `Z_UNIQUE`: an insert's constrained values, its object, and its author's
/// transaction and knowledge.
private struct NotedInsert {
    var key: [UInt8]
    let gid: GlobalID
    let peer: String
    let number: Int64
    let knowledge: String

    /// Whether the two inserts are one object's: made in one transaction (a bulk save, see
    /// `TransactionWriter.collides`), or with neither author having seen the other's.
    func collides(with other: NotedInsert) -> Bool {
        if peer == other.peer && number == other.number { return true }
        guard peer != other.peer else { return false }
        let mine = KnowledgeVector(string: knowledge), theirs = KnowledgeVector(string: other.knowledge)
        return !(mine?.covers(peer: other.peer, number: other.number) ?? false)
            && !(theirs?.covers(peer: peer, number: number) ?? false)
    }
}
