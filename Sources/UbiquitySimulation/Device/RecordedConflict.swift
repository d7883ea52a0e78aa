import Ubiquity

/// A conflict a device's store recorded in its conflict history, as the device tells it to the
/// runner: which slot, which kind, whose write won over whose (devices by the user part of
/// their peer IDs, which is the device's name in a scenario).
public struct RecordedConflict: Codable, Sendable, Equatable, CustomStringConvertible {
    /// `Note/w2`: the entity and the object's key.
    public var object: String
    public var property: String
    /// `update` (two concurrent writes) or `delete` (a write concurrent with a delete, which won).
    public var kind: String
    public var winner: String
    public var loser: String

    public init(object: String, property: String, kind: String, winner: String, loser: String) {
        self.object = object
        self.property = property
        self.kind = kind
        self.winner = winner
        self.loser = loser
    }

    init(_ record: ConflictRecord) {
        func device(_ peer: String) -> String { String(peer.prefix { $0 != "~" }) }
        self.init(object: record.object.description, property: record.property, kind: record.kind.rawValue,
                  winner: device(record.winnerPeer), loser: device(record.loserPeer))
    }

    /// `Note/w2.title: mac's write won over iphone's`, as the timeline shows it.
    public var description: String {
        "\(object).\(property): \(winner)'s \(kind == ConflictRecord.Kind.delete.rawValue ? "delete" : "write") won over \(loser)'s"
    }

    /// `{object, property, kind, winner, loser}`.
    public var jsonValue: JSONValue {
        .object(["object": .string(object), "property": .string(property), "kind": .string(kind),
                 "winner": .string(winner), "loser": .string(loser)])
    }
}
