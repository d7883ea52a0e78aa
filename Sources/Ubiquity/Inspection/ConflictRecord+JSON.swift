import UbiquityBase
import UbiquityCore

extension ConflictValue {
    /// The value in JSON: attributes as `AttributeValue.jsonValue`, targets as their global ID,
    /// pairs as "present" or "absent", no value as `null`.
    public var jsonValue: JSONValue {
        switch self {
        case let .attribute(value): return value.jsonValue
        case let .target(target): return target.map { .string($0.description) } ?? .null
        case let .member(present): return .string(present ? "present" : "absent")
        }
    }

    /// The value as JSON text, as the CLI and the log print it.
    public func text() -> String { jsonValue.text() }
}

extension ConflictRecord {
    /// `{id, object, property, kind, winner, loser, winnerStamp, loserStamp, winnerPeer, loserPeer, recorded}`
    public var jsonValue: JSONValue {
        .object([
            "id": .int(id), "object": .string(object.description), "property": .string(property), "kind": .string(kind.rawValue),
            "winner": winnerValue.jsonValue, "loser": loserValue.jsonValue, "winnerStamp": .string(winnerStamp), "loserStamp": .string(loserStamp),
            "winnerPeer": .string(winnerPeer), "loserPeer": .string(loserPeer), "recorded": .double(recorded.timeIntervalSince1970),
        ])
    }
}
