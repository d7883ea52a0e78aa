import Foundation
import UbiquityBase

/// One concurrent overwrite, as the conflict history keeps it: nothing is silently lost.
public struct ConflictRecord: Sendable, Equatable {
    public enum Kind: String, Sendable {
        /// Two concurrent writes of the same property; the larger stamp won.
        case update
        /// A write concurrent with a delete; the delete won (`winnerValue` is `nil`).
        case delete
    }

    public let id: Int64
    public let object: GlobalID
    /// An attribute, a to-one relationship, or `relationship[target]` for a to-many pair.
    public let property: String
    public let kind: Kind
    public let winnerValue: JSONValue
    public let loserValue: JSONValue
    public let winnerStamp: String
    public let loserStamp: String
    public let winnerNumber: Int64
    public let loserNumber: Int64
    public let recorded: Date

    /// The peer whose write won.
    public var winnerPeer: String { Stamp(winnerStamp)?.peerID ?? "" }
    /// The peer whose write lost.
    public var loserPeer: String { Stamp(loserStamp)?.peerID ?? "" }
}

extension PersistentStore {
    /// The conflict history, oldest first.
    public func conflicts() throws -> [ConflictRecord] {
        try locked {
            try database.statement("""
                SELECT id, gid, property, kind, winner_value, loser_value, winner_stamp, loser_stamp,
                       winner_number, loser_number, recorded FROM Z_CONFLICTS ORDER BY id
                """).rows { row in
                ConflictRecord(
                    id: row.int64(0), object: try GlobalID(row.string(1) ?? ""), property: row.string(2) ?? "",
                    kind: ConflictRecord.Kind(rawValue: row.string(3) ?? "") ?? .update,
                    winnerValue: row.value(4).jsonValue, loserValue: row.value(5).jsonValue,
                    winnerStamp: row.string(6) ?? "", loserStamp: row.string(7) ?? "",
                    winnerNumber: row.int64(8), loserNumber: row.int64(9), recorded: Date(timeIntervalSince1970: row.double(10)))
            }
        }
    }
}

extension ConflictRecord {
    /// `{id, object, property, kind, winner, loser, winnerStamp, loserStamp, winnerPeer, loserPeer, recorded}`
    public var jsonValue: JSONValue {
        .object([
            "id": .int(id), "object": .string(object.description), "property": .string(property), "kind": .string(kind.rawValue),
            "winner": winnerValue, "loser": loserValue, "winnerStamp": .string(winnerStamp), "loserStamp": .string(loserStamp),
            "winnerPeer": .string(winnerPeer), "loserPeer": .string(loserPeer), "recorded": .double(recorded.timeIntervalSince1970),
        ])
    }
}
