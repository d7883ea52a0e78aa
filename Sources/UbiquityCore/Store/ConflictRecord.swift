import Foundation

/// One concurrent overwrite, as the conflict history keeps it: nothing is silently lost.
public struct ConflictRecord: Sendable, Equatable {
    public enum Kind: String, Sendable {
        /// Two concurrent writes of the same property; the larger stamp won.
        case update
        /// A write concurrent with a delete; the delete won (`winnerValue` holds no value).
        case delete
    }

    public let id: Int64
    public let object: GlobalID
    /// An attribute, a to-one relationship, or `relationship[target]` for a to-many pair.
    public let property: String
    public let kind: Kind
    public let winnerValue: ConflictValue
    public let loserValue: ConflictValue
    public let winnerStamp: String
    public let loserStamp: String
    public let winnerNumber: Int64
    public let loserNumber: Int64
    public let recorded: Date

    /// The peer whose write won.
    public var winnerPeer: String { Stamp(winnerStamp)?.peerID ?? "" }
    /// The peer whose write lost.
    public var loserPeer: String { Stamp(loserStamp)?.peerID ?? "" }

    /// The relationship and target a to-many pair's property (`relationship[target]`) names;
    /// `nil` for an attribute or a to-one relationship.
    /// The relationship and member a position's property (`relationship[member].position`) names.
    package static func position(in property: String) -> (relationship: String, member: String)? {
        guard property.hasSuffix("].position") else { return nil }
        return pair(in: String(property.dropLast(".position".count))).map { ($0.relationship, $0.target) }
    }

    package static func pair(in property: String) -> (relationship: String, target: String)? {
        guard let open = property.firstIndex(of: "["), property.hasSuffix("]") else { return nil }
        return (String(property[..<open]), String(property[property.index(after: open)..<property.index(before: property.endIndex)]))
    }
}

/// A value in the conflict history, typed by the property it was written to.
public enum ConflictValue: Sendable, Equatable {
    /// An attribute's value; `nil`: none (also the winner of a delete).
    case attribute(AttributeValue?)
    /// A to-one relationship's target; `nil`: none (also the winner of a delete).
    case target(GlobalID?)
    /// A to-many pair: whether the target was in the relationship.
    case member(Bool)
}

extension PersistentStore {
    /// The conflict history, oldest first.
    public func conflicts() throws -> [ConflictRecord] {
        try locked {
            try database.statement("SELECT \(Self.conflictColumns) FROM Z_CONFLICTS ORDER BY id").rows { row in try conflictRecord(row) }
        }
    }

    /// Conflict `id` of the history; `nil` when there is none.
    public func conflict(_ id: Int64) throws -> ConflictRecord? {
        try locked {
            let statement = try database.statement("SELECT \(Self.conflictColumns) FROM Z_CONFLICTS WHERE id = ?")
            try statement.bind([.integer(id)])
            return try statement.step() ? try conflictRecord(statement) : nil
        }
    }

    /// The largest conflict ID recorded so far (0: none).
    package func lastConflictID() throws -> Int64 {
        try locked {
            let statement = try database.statement("SELECT coalesce(max(id), 0) FROM Z_CONFLICTS")
            return try statement.step() ? statement.int64(0) : 0
        }
    }

    private static let conflictColumns = """
        id, gid, property, kind, winner_value, loser_value, winner_stamp, loser_stamp, winner_number, loser_number, recorded
        """

    private func conflictRecord(_ row: SQLiteStatement) throws -> ConflictRecord {
        let object = try GlobalID(row.string(1) ?? ""), property = row.string(2) ?? ""
        return ConflictRecord(
            id: row.int64(0), object: object, property: property,
            kind: ConflictRecord.Kind(rawValue: row.string(3) ?? "") ?? .update,
            winnerValue: conflictValue(row.value(4), of: property, in: object.entity),
            loserValue: conflictValue(row.value(5), of: property, in: object.entity),
            winnerStamp: row.string(6) ?? "", loserStamp: row.string(7) ?? "",
            winnerNumber: row.int64(8), loserNumber: row.int64(9), recorded: Date(timeIntervalSince1970: row.double(10)))
    }

    /// A stored conflict value read back by its property's declaration (pairs are stored as
    /// "present"/"absent", targets as global ID text, attributes as in their column).
    private func conflictValue(_ stored: SQLiteValue, of property: String, in entity: String) -> ConflictValue {
        if ConflictRecord.pair(in: property) != nil { return .member(stored == .text("present")) }
        let description = model.entity(entity)
        if description?.relationship(property) != nil {
            if case let .text(text) = stored, let target = try? GlobalID(text) { return .target(target) }
            return .target(nil)
        }
        let type = description?.attribute(property)?.type ?? stored.attributeType
        return .attribute(type.flatMap { AttributeValue(sqlite: stored, type: $0) })
    }
}
