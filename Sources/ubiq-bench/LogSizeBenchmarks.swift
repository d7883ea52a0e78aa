import Foundation
import Ubiquity
import UbiquityPlist

/// Bytes per change of a transaction log: Ubiquity's binary and XML files beside Foundation's
/// encodings (PropertyListEncoder through Codable, PropertyListSerialization) of the same tree.
enum LogSizeBenchmarks {
    static func run(_ options: BenchmarkOptions) throws -> String {
        let scratch = try ScratchDirectory()
        defer { scratch.cleanUp() }
        let store = try PersistentStore(path: scratch.path + "/store.sqlite", model: .notes, peerID: "bench~" + UUID().uuidString.lowercased(),
                                        storeName: "Store", contentName: "Bench")
        let rows = NoteRow.make(200)
        var logs: [(String, Int, TransactionLog)] = []
        func commit(_ label: String, _ changes: Int, inserted: [ChangeRecord] = [], updated: [ChangeRecord] = [], deleted: [GlobalID] = []) throws {
            guard let log = try store.commitLocal(inserted: inserted, updated: updated, deleted: deleted)?.log else { throw BenchmarkError("nothing committed") }
            logs.append((label, changes, log))
        }
        try commit("1 insert (4 attributes, 1 to-one)", 1, inserted: [rows[0].insertRecord])
        try commit("100 inserts", 100, inserted: rows[1...100].map(\.insertRecord))
        try commit("100 updates of one attribute", 100, updated: rows[1...100].map(\.updateRecord))
        try commit("100 deletes", 100, deleted: rows[1...100].map { try! GlobalID(entity: "Note", key: $0.key) })

        var table = MarkdownTable("Log size: bytes per change", ["log", "Ubiquity binary", "Ubiquity XML", "PropertyListEncoder binary", "PropertyListSerialization binary", "PropertyListSerialization XML", "binary vs Encoder"])
        for (label, changes, log) in logs {
            let binary = log.encoded(format: .binary).count, xml = log.encoded(format: .xml).count
            let encoder = PropertyListEncoder()
            encoder.outputFormat = .binary
            let codable = try encoder.encode(CodablePlist(log.plistValue)).count
            let object = foundationObject(log.plistValue)
            let serializedBinary = try PropertyListSerialization.data(fromPropertyList: object, format: .binary, options: 0).count
            let serializedXML = try PropertyListSerialization.data(fromPropertyList: object, format: .xml, options: 0).count
            func perChange(_ bytes: Int) -> String { "\(Measurement.grouped(bytes / changes)) (\(Measurement.grouped(bytes)))" }
            table.add([label, perChange(binary), perChange(xml), perChange(codable), perChange(serializedBinary), perChange(serializedXML),
                       String(format: "%.0f %%", 100 * Double(binary) / Double(codable))])
        }
        table.notes = [
            "Bytes per changed object (whole file in parentheses), header fields and checksum included. Foundation encodes the same property-list tree",
            "(`TransactionLog.plistValue`); Ubiquity's binary writer shares repeated strings and keys, as PropertyListEncoder does and PropertyListSerialization does not.",
        ]
        return table.text
    }

    private static func foundationObject(_ value: PlistValue) -> Any {
        switch value {
        case let .string(s): return s
        case let .integer(i): return i
        case let .unsignedInteger(u): return u
        case let .real(d): return d
        case let .boolean(b): return b
        case let .date(d): return Date(timeIntervalSince1970: d)
        case let .data(d): return Data(d)
        case let .uid(u): return u  // logs hold no UIDs or nulls
        case .null: return NSNull()
        case let .array(a): return a.map(foundationObject)
        case let .dictionary(d): return d.mapValues(foundationObject)
        }
    }
}

/// A property-list tree as Codable, so PropertyListEncoder writes exactly the same values.
private struct CodablePlist: Encodable {
    let value: PlistValue
    init(_ value: PlistValue) { self.value = value }

    private struct Key: CodingKey {
        let stringValue: String
        init(stringValue: String) { self.stringValue = stringValue }
        var intValue: Int? { nil }
        init?(intValue: Int) { nil }
    }

    func encode(to encoder: any Encoder) throws {
        switch value {
        case let .array(elements):
            var container = encoder.unkeyedContainer()
            for element in elements { try container.encode(CodablePlist(element)) }
        case let .dictionary(fields):
            var container = encoder.container(keyedBy: Key.self)
            for (key, element) in fields { try container.encode(CodablePlist(element), forKey: Key(stringValue: key)) }
        default:
            var container = encoder.singleValueContainer()
            switch value {
            case let .string(s): try container.encode(s)
            case let .integer(i): try container.encode(i)
            case let .unsignedInteger(u): try container.encode(u)
            case let .real(d): try container.encode(d)
            case let .boolean(b): try container.encode(b)
            case let .date(d): try container.encode(Date(timeIntervalSince1970: d))
            case let .data(d): try container.encode(Data(d))
            case let .uid(u): try container.encode(u)  // logs hold no UIDs or nulls
            case .null: try container.encodeNil()
            case .array, .dictionary: break
            }
        }
    }
}
