import Foundation
import UbiquityBase
import UbiquityCore

// A transaction log as people and scripts read it (`ubiq logs show`).
extension TransactionLog {
    /// `{peerID, transactionNumber, kv, stamp, transactionDate, modelVersionHash, storeName,
    /// contentName, inserted: [record], updated: [record], deleted: [gid]}`; a record is
    /// `{id, entity, values, relationships}` with to-many changes as `{add, remove}` (and
    /// `positions` of an ordered one's placed members).
    public var jsonValue: JSONValue {
        func record(_ change: ChangeRecord) -> JSONValue {
            var relationships: [String: JSONValue] = [:]
            for (name, value) in change.relationships {
                switch value {
                case let .toOne(target): relationships[name] = target.map { .string($0.description) } ?? .null
                case let .toMany(added, removed):
                    relationships[name] = .object(["add": .array(added.map { .string($0.description) }), "remove": .array(removed.map { .string($0.description) })])
                }
            }
            for (name, keys) in change.positions {
                var fields: [String: JSONValue] = [:]
                if case let .object(existing)? = relationships[name] { fields = existing }
                fields["positions"] = .object(Dictionary(uniqueKeysWithValues: keys.map { ($0.key.description, JSONValue.string($0.value)) }))
                relationships[name] = .object(fields)
            }
            return .object(["id": .string(change.id.description), "entity": .string(change.id.entity),
                            "values": .object(change.values.mapValues(\.jsonValue)), "relationships": .object(relationships)])
        }
        return .object([
            "peerID": .string(peerID), "transactionNumber": .int(transactionNumber), "kv": .string(knowledge.description),
            "stamp": .string(stamp.description), "transactionDate": .double(transactionDate), "modelVersionHash": .string(modelVersionHash),
            "storeName": .string(storeName), "contentName": .string(contentName),
            "inserted": .array(inserted.map(record)), "updated": .array(updated.map(record)),
            "deleted": .array(deleted.map { .string($0.description) }),
        ])
    }

    /// Readable text: a header, then one line per change.
    public var text: String {
        var lines = [
            "transaction \(transactionNumber) of \(peerID)",
            "  knowledge \(knowledge)",
            "  stamp     \(stamp)  (\(ISO8601DateFormatter().string(from: stamp.date)))",
            "  store     \(storeName), content \(contentName), model \(modelVersionHash)",
        ]
        func describe(_ change: ChangeRecord) -> String {
            let values = change.values.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value.map { "\($0)" } ?? "nil")" }
            let relationships = change.relationships.sorted { $0.key < $1.key }.map { name, value -> String in
                switch value {
                case let .toOne(target): return "\(name)=\(target?.description ?? "nil")"
                case let .toMany(added, removed):
                    return "\(name)" + (added.isEmpty ? "" : " +[\(added.map(\.description).joined(separator: ", "))]")
                        + (removed.isEmpty ? "" : " -[\(removed.map(\.description).joined(separator: ", "))]")
                }
            }
            // Placements in ordered relationships: `songs@[Song/a:V12, …]`, by member.
            let positions = change.positions.sorted { $0.key < $1.key }.map { name, keys in
                "\(name)@[" + keys.sorted { $0.key < $1.key }.map { "\($0.key):\($0.value)" }.joined(separator: ", ") + "]"
            }
            return ([change.id.description] + values + relationships + positions).joined(separator: " ")
        }
        lines += inserted.map { "  + " + describe($0) }
        lines += updated.map { "  ~ " + describe($0) }
        lines += deleted.map { "  - \($0)" }
        return lines.joined(separator: "\n")
    }
}
