import Foundation

/// One concurrent overwrite, as the conflict history keeps it: nothing is silently lost.
public struct ConflictRecord: Sendable, Equatable {
    public enum Kind: String, Sendable {
        /// Two concurrent writes of the same property; the larger stamp won.
        case update
        /// A write concurrent with a delete; the delete won (`winnerValue` holds no value).
        case delete
        /// The object (the loser) was inserted concurrently with another holding the same
        /// values of a uniqueness constraint, and merged into it: one record per property the
        /// loser held, its value beside the one the winner kept.
        case uniqueness
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

    /// The relationship and member a position's property (`relationship[member].position`) names.
    package static func position(in property: String) -> (relationship: String, member: String)? {
        guard property.hasSuffix("].position") else { return nil }
        return pair(in: String(property.dropLast(".position".count))).map { ($0.relationship, $0.target) }
    }

    /// The relationship and target a to-many pair's property (`relationship[target]`) names;
    /// `nil` for an attribute or a to-one relationship.
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

// The conflict history (`ConflictHistory`) through the store's lock.
extension PersistentStore {
    /// The conflict history, oldest first.
    public func conflicts() throws -> [ConflictRecord] { try locked { try conflictHistory.all() } }

    /// Conflict `id` of the history; `nil` when there is none.
    public func conflict(_ id: Int64) throws -> ConflictRecord? { try locked { try conflictHistory.conflict(id) } }

    /// The largest conflict ID recorded so far (0: none).
    package func lastConflictID() throws -> Int64 { try locked { try database.unchangedRead("lastConflictID") { try conflictHistory.lastID() } } }
}
