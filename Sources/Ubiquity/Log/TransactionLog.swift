import Foundation
import UbiquityPlist

/// One local transaction of one peer, as it travels through the cloud (DESIGN §3).
public struct TransactionLog: Sendable, Equatable {
    public static let formatVersion: Int64 = 1

    public var peerID: String
    public var transactionNumber: Int64
    /// The author's knowledge after this transaction (its own entry equals `transactionNumber`).
    public var knowledge: KnowledgeVector
    public var stamp: Stamp
    /// Seconds since 1970.
    public var transactionDate: Double
    public var modelVersionHash: String
    public var storeName: String
    public var contentName: String
    public var inserted: [ChangeRecord]
    public var updated: [ChangeRecord]
    public var deleted: [GlobalID]

    /// Whether the log holds no change at all.
    public var isEmpty: Bool { inserted.isEmpty && updated.isEmpty && deleted.isEmpty }

    /// `<txn:10 digits>-<UUID>.1.cdt`
    public static func fileName(number: Int64, uuid: UUID = UUID()) -> String {
        let digits = String(number)
        return String(repeating: "0", count: max(0, 10 - digits.count)) + digits + "-" + uuid.uuidString + ".1.cdt"
    }

    /// The transaction number in a log file name, or `nil` when the name is not a log's.
    public static func transactionNumber(inFileName name: String) -> Int64? {
        // Checked byte by byte: every scan of the container asks this of every file it lists
        // (Foundation's UUID parser was most of the cost of listing a busy container).
        var name = name
        return name.withUTF8 { bytes -> Int64? in
            guard bytes.count == 10 + 1 + 36 + 6, bytes[10] == UInt8(ascii: "-"),
                  bytes[47...].elementsEqual(".1.cdt".utf8) else { return nil }
            var number: Int64 = 0
            for byte in bytes[0..<10] {
                guard byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") else { return nil }
                number = number * 10 + Int64(byte - UInt8(ascii: "0"))
            }
            // A UUID: 8-4-4-4-12 hexadecimal digits.
            for (offset, byte) in bytes[11..<47].enumerated() {
                if [8, 13, 18, 23].contains(offset) {
                    guard byte == UInt8(ascii: "-") else { return nil }
                } else {
                    guard (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || ((byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "f")) else { return nil }
                }
            }
            return number
        }
    }
}

/// An inserted or updated object in a log: its attribute values and relationship changes.
public struct ChangeRecord: Sendable, Equatable {
    public var id: GlobalID
    /// For inserts every attribute; for updates the changed ones (whole merge groups). `nil` = absent value.
    public var values: [String: AttributeValue?]
    public var relationships: [String: RelationshipChange]

    public init(id: GlobalID, values: [String: AttributeValue?] = [:], relationships: [String: RelationshipChange] = [:]) {
        self.id = id
        self.values = values
        self.relationships = relationships
    }
}

/// A relationship change in a log.
public enum RelationshipChange: Sendable, Equatable {
    /// A to-one set to a target, or cleared.
    case toOne(GlobalID?)
    /// Pairs added to and removed from a to-many.
    case toMany(added: [GlobalID], removed: [GlobalID])
}
