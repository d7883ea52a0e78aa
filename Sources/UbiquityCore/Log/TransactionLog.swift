import Foundation
import UbiquityBase
import UbiquityPlist

/// One local transaction of one peer, as it travels through the cloud (Docs/ContainerFormat.md).
public struct TransactionLog: Sendable, Equatable {
    public static let formatVersion: Int64 = 1
    /// The largest log file any reader takes (64 MiB); a larger one is refused as damaged, so
    /// a forged or runaway file never fills memory.
    public static let maximumFileSize = 64 << 20

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
    /// The content epoch the author was in (`nil`: content never removed). A log of another
    /// epoch than the reader's belongs to removed content and is never applied.
    public var contentEpoch: String? = nil

    /// Whether the log holds no change at all.
    public var isEmpty: Bool { inserted.isEmpty && updated.isEmpty && deleted.isEmpty }

    /// This log's file name: its UUID made from its author, content epoch, number and stamp —
    /// unique (a peer never numbers two transactions of one epoch alike, and a device folder
    /// copied to a second machine still stamps them apart, so both logs show), and the same on
    /// every replay of a scenario.
    public var fileName: String {
        Self.fileName(number: transactionNumber, uuid: NameBasedUUID.make([
            .string("log"), .string(peerID), .string(contentEpoch ?? ""), .integer(transactionNumber), .string(stamp.description),
        ]))
    }

    /// `<txn:10 digits>-<UUID>.1.cdt`
    public static func fileName(number: Int64, uuid: UUID = UUID()) -> String {
        let digits = String(number)
        return String(repeating: "0", count: max(0, 10 - digits.count)) + digits + "-" + uuid.uuidString + ".1.cdt"
    }

    /// The transaction number in a log file name, or `nil` when the name is not a log's.
    public static func transactionNumber(inFileName name: String) -> Int64? {
        // Every name of every listing comes through here: plain loops over the bytes, no UUID built.
        guard name.utf8.count == 10 + 1 + 36 + 6, name.hasSuffix(".1.cdt") else { return nil }
        var text = name
        return text.withUTF8 { bytes -> Int64? in
            guard bytes[10] == UInt8(ascii: "-") else { return nil }
            var number: Int64 = 0
            var index = 0
            while index < 10 {
                let digit = bytes[index] &- UInt8(ascii: "0")
                guard digit < 10 else { return nil }
                number = number * 10 + Int64(digit)
                index += 1
            }
            index = 11
            while index < 47 {
                let byte = bytes[index], offset = index - 11
                if offset == 8 || offset == 13 || offset == 18 || offset == 23 {
                    guard byte == UInt8(ascii: "-") else { return nil }
                } else {
                    let lower = byte | 0x20
                    guard (byte &- UInt8(ascii: "0")) < 10 || (lower &- UInt8(ascii: "a")) < 6 else { return nil }
                }
                index += 1
            }
            return number
        }
    }
}

/// An inserted or updated object in a log: its attribute values and relationship changes.
public struct ChangeRecord: Sendable, Equatable {
    public var id: GlobalID
    /// How the values are held: by name, or (as the binary log reader makes them) by the index
    /// of each attribute in its entity, which the merge binds by column without a hash per value.
    var valueStorage: ValueStorage
    public var relationships: [String: RelationshipChange]
    /// Ordered to-many relationships: the new position key of each member placed or moved
    /// (`OrderKey`), by relationship and member. Membership itself travels in `relationships`.
    public var positions: [String: [GlobalID: String]]

    /// For inserts every attribute; for updates the changed ones (whole merge groups). `nil` = absent value.
    public var values: [String: AttributeValue?] {
        get { valueStorage.dictionary }
        _modify {
            // Taken out first, so the dictionary is changed in place rather than copied.
            var values = valueStorage.dictionary
            valueStorage = .named([:])
            defer { valueStorage = .named(values) }
            yield &values
        }
    }

    /// The value of attribute `name` (`.some(nil)`: no value), or `nil` when the record does
    /// not write it; read where it lies, without the dictionary of every value.
    func value(of name: String) -> AttributeValue?? {
        switch valueStorage {
        case let .named(values): return values[name]
        case let .laidOut(layout, values): return layout.names.firstIndex(of: name).flatMap { values[$0] }
        }
    }

    public init(id: GlobalID, values: [String: AttributeValue?] = [:], relationships: [String: RelationshipChange] = [:],
                positions: [String: [GlobalID: String]] = [:]) {
        self.id = id
        valueStorage = .named(values)
        self.relationships = relationships
        self.positions = positions
    }

    /// A record whose values lie by attribute index of `layout` (`.none`: not set).
    init(id: GlobalID, layout: AttributeLayout, values: [AttributeValue??], relationships: [String: RelationshipChange] = [:]) {
        self.id = id
        valueStorage = .laidOut(layout, values)
        self.relationships = relationships
        positions = [:]
    }

    /// Equal when the same object gets the same values and changes, however they are held.
    public static func == (lhs: ChangeRecord, rhs: ChangeRecord) -> Bool {
        lhs.id == rhs.id && lhs.values == rhs.values && lhs.relationships == rhs.relationships && lhs.positions == rhs.positions
    }

    /// A record's values by name, or by attribute index of a layout.
    enum ValueStorage: Sendable {
        case named([String: AttributeValue?])
        case laidOut(AttributeLayout, [AttributeValue??])

        var dictionary: [String: AttributeValue?] {
            switch self {
            case let .named(values): return values
            case let .laidOut(layout, values):
                var result = [String: AttributeValue?](minimumCapacity: values.count)
                for (index, value) in values.enumerated() { if case let .some(value) = value { result[layout.names[index]] = .some(value) } }
                return result
            }
        }
    }
}

/// The attribute names of one entity in the model's order: the index of a laid-out record's
/// value. One per entity per log read; the merge maps it onto its columns once per layout.
final class AttributeLayout: Sendable {
    let names: [String]

    init(names: [String]) { self.names = names }
}

/// A relationship change in a log.
public enum RelationshipChange: Sendable, Equatable {
    /// A to-one set to a target, or cleared.
    case toOne(GlobalID?)
    /// Pairs added to and removed from a to-many.
    case toMany(added: [GlobalID], removed: [GlobalID])
}
