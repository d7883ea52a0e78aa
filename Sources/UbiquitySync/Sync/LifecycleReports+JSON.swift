import Foundation
import UbiquityBase

// The JSON shapes `ubiq baseline show`, `ubiq baseline roll` and `ubiq gc` print (Docs/CLI.md).

extension BaselineMetadata {
    /// `{author, kv, previousKV, modelVersionHash, storeName, contentName, created, storeChecksum}`
    public var jsonValue: JSONValue {
        .object([
            "author": .string(author), "kv": .string(knowledge.description), "previousKV": .string(previousKnowledge.description),
            "modelVersionHash": .string(modelVersionHash), "storeName": .string(storeName), "contentName": .string(contentName),
            "created": .double(created), "storeChecksum": .string(storeChecksum),
        ])
    }
}

extension BaselineDecision {
    /// `{rolled: Bool, reason, baseline?}`
    public var jsonValue: JSONValue {
        switch self {
        case let .rolled(metadata, reason): return .object(["rolled": .bool(true), "reason": .string(reason), "baseline": metadata.jsonValue])
        case let .skipped(reason): return .object(["rolled": .bool(false), "reason": .string(reason)])
        }
    }
}

extension GarbageReport {
    /// `{deleted: [name], kept, blockingPeers: {peer: number}, staleReceipts: [peer], note?, deletedCopies?: [name]}`
    /// (`deletedCopies` only when a duplicate copy was deleted)
    public var jsonValue: JSONValue {
        var fields: [String: JSONValue] = [
            "deleted": .array(deleted.map(JSONValue.string)), "kept": .int(Int64(kept)),
            "blockingPeers": .object(blockingPeers.mapValues(JSONValue.int)),
            "staleReceipts": .array(staleReceipts.map(JSONValue.string)),
        ]
        if let note { fields["note"] = .string(note) }
        if !deletedCopies.isEmpty { fields["deletedCopies"] = .array(deletedCopies.map(JSONValue.string)) }
        return .object(fields)
    }

    /// One line for people.
    public var line: String {
        var text = "deleted \(deleted.count) own log(s), kept \(kept)"
        if !deletedCopies.isEmpty { text += ", and \(deletedCopies.count) duplicate cop\(deletedCopies.count == 1 ? "y" : "ies") (name 2.ext)" }
        if let note { text += " — \(note)" }
        if !blockingPeers.isEmpty {
            // "Passed" is the lesser of what the receipt says was imported and what the baseline
            // it names holds: a peer that imported everything but has not seen the baseline yet
            // holds logs back too, which "receipt at 0" alone made look like a bug.
            text += "; held back by " + blockingPeers.sorted { $0.key < $1.key }.map { "\($0.key) (passed transaction \($0.value))" }.joined(separator: ", ")
                + " — a peer passes a log once it has imported it and seen a baseline that holds it"
        }
        if !staleReceipts.isEmpty { text += "; stale receipts (silent for longer than the grace period while others synced): " + staleReceipts.joined(separator: ", ") }
        return text
    }
}
