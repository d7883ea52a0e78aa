import Foundation
import Testing
import UbiquityPlist
@testable import Ubiquity
@testable import UbiquityCore
import UbiquityTestSupport

/// Every Core Data attribute type travels through a log to every peer bit for bit, and keeps
/// its order in fetches (Docs/ContainerFormat.md, "Values").
@Suite("Every attribute type round-trips through logs on every peer")
struct AttributeTypeSyncTests {
    static let model = try! ObjectModel(name: "Everything", entities: [
        EntityDescription("Thing", attributes: [
            AttributeDescription("text", .string),
            AttributeDescription("small", .integer16),
            AttributeDescription("medium", .integer32),
            AttributeDescription("large", .integer),
            AttributeDescription("amount", .decimal),
            AttributeDescription("ratio", .double),
            AttributeDescription("level", .float),
            AttributeDescription("flag", .boolean),
            AttributeDescription("when", .date),
            AttributeDescription("blob", .binary),
            AttributeDescription("ident", .uuid),
            AttributeDescription("link", .uri),
            AttributeDescription("payload", .transformable, valueTransformerName: "NSSecureUnarchiveFromData"),
        ]),
    ])

    /// Values at the edges of each type: the extremes of the integers and the decimal range, the
    /// smallest subnormals, negative zero, a string with U+0000 and other control characters.
    static let rows: [[String: AttributeValue]] = [
        [
            "text": .string("nul \u{0} inside, \u{1}\u{7F} controls, 日本 and 🎉"),
            "small": .integer(Int64(Int16.min)), "medium": .integer(Int64(Int32.max)), "large": .integer(.min),
            "amount": .decimal(DecimalNumber("12345678901234567890123456789012345678")!),
            "ratio": .double(.leastNonzeroMagnitude), "level": .float(.leastNonzeroMagnitude), "flag": .boolean(true),
            "when": .date(secondsSince1970: -62_135_596_800.000_001), "blob": .binary(Array(0...255)),
            "ident": .uuid(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!),
            "link": .uri(URL(string: "https://example.com/a%20b?q=1&r=%E2%82%AC#frag")!),
            "payload": .binary([0x62, 0x70, 0x6C, 0x69, 0x73, 0x74, 0x30, 0x30, 0]),
        ],
        [
            "text": .string("\u{0}"), "small": .integer(Int64(Int16.max)), "medium": .integer(Int64(Int32.min)), "large": .integer(.max),
            "amount": .decimal(DecimalNumber("-0.00000000000000000000000000000000000001")!),
            "ratio": .double(-0.0), "level": .float(0.1), "flag": .boolean(false),
            "when": .date(secondsSince1970: 1_700_000_000.123_456_7), "blob": .binary([]),
            "ident": .uuid(UUID(uuidString: "00000000-0000-0000-0000-000000000000")!),
            "link": .uri(URL(string: "file:///tmp/x")!), "payload": .binary([]),
        ],
        [
            "text": .string(""), "amount": .decimal(DecimalNumber("9.9999999999999999999999999999999999999E+164")!),
            "ratio": .double(.greatestFiniteMagnitude), "level": .float(-.greatestFiniteMagnitude),
        ],
        [
            "amount": .decimal(DecimalNumber("1E-128")!), "ratio": .double(.pi), "level": .float(.pi),
        ],
    ]

    @Test(arguments: [PlistFormat.binary, .xml])
    func everyValueArrivesBitForBit(_ format: PlistFormat) throws {
        let cloud = try TestCloud(model: Self.model, contentName: "Things")
        let writer = try cloud.peer("writer", format: format), b = try cloud.peer("b"), c = try cloud.peer("c")
        let context = writer.newContext()
        var ids: [GlobalID] = []
        for (index, row) in Self.rows.enumerated() {
            let object = try context.insert("Thing", key: "t\(index)")
            for (name, value) in row { try object.setValue(value, for: name) }
            ids.append(object.id)
        }
        try context.save()
        _ = try b.sync()
        _ = try c.sync()
        for peer in [writer, b, c] {
            for (index, row) in Self.rows.enumerated() {
                let snapshot = try #require(try peer.store.snapshot(of: ids[index]))
                for attribute in Self.model.entity("Thing")!.attributes {
                    let expected = row[attribute.name], found = snapshot.values[attribute.name] ?? nil
                    #expect(Self.bits(found) == Self.bits(expected), "\(attribute.name) of row \(index) on \(peer.peerID)")
                }
            }
        }
        #expect(try writer.dumpText() == b.dumpText())
        #expect(try b.dumpText() == c.dumpText())

        // The log carries each type in its documented form.
        let directory = try #require(writer.location).logDirectory(of: writer.peerID)
        let file = try #require(DirectoryEntry.list(directory).first { TransactionLog.transactionNumber(inFileName: $0.name) != nil })
        let plist = try PlistSeam.decode(try AtomicFile.read(directory + "/" + file.name, limit: 1 << 20))
        let first = try #require(plist["inserted"]?.arrayValue?.first { $0["gid"]?.stringValue == "Thing/t0" }?["values"])
        #expect(first["amount"] == .string("12345678901234567890123456789012345678"))
        #expect(first["level"] == .real(Double(Float.leastNonzeroMagnitude)))
        #expect(first["small"] == .integer(Int64(Int16.min)))
        #expect(first["link"] == .string("https://example.com/a%20b?q=1&r=%E2%82%AC#frag"))
        #expect(first["payload"] == .data([0x62, 0x70, 0x6C, 0x69, 0x73, 0x74, 0x30, 0x30, 0]))
        #expect(first["text"] == .string("nul \u{0} inside, \u{1}\u{7F} controls, 日本 and 🎉"))
    }

    /// A baseline's store file carries every type as the store holds it: a newcomer that starts
    /// from it reads the same values, bit for bit.
    @Test func everyValueTravelsInABaseline() throws {
        let cloud = try TestCloud(model: Self.model, contentName: "Things")
        let manual: BaselinePolicy? = nil
        let writer = try cloud.peer("writer", policy: manual)
        let context = writer.newContext()
        for (index, row) in Self.rows.enumerated() {
            let object = try context.insert("Thing", key: "t\(index)")
            for (name, value) in row { try object.setValue(value, for: name) }
        }
        try context.save()
        _ = try writer.sync()
        guard case .rolled = try writer.rollBaseline(force: true) else {
            Issue.record("the writer rolls a baseline")
            return
        }
        let newcomer = try cloud.peer("newcomer", policy: manual)
        #expect(try newcomer.sync().adoptedBaseline == writer.peerID)
        for index in Self.rows.indices {
            let id = try GlobalID(entity: "Thing", key: "t\(index)")
            let mine = try #require(try writer.store.snapshot(of: id)), theirs = try #require(try newcomer.store.snapshot(of: id))
            for attribute in Self.model.entity("Thing")!.attributes {
                #expect(Self.bits(theirs.values[attribute.name] ?? nil) == Self.bits(mine.values[attribute.name] ?? nil), "\(attribute.name) of row \(index)")
            }
        }
        #expect(try writer.dumpText() == newcomer.dumpText())
    }

    /// Reals compared by bit pattern (so -0.0 differs from 0.0), everything else by value.
    static func bits(_ value: AttributeValue?) -> String {
        switch value {
        case let .double(d)?: return "double \(d.bitPattern)"
        case let .float(f)?: return "float \(f.bitPattern)"
        case let .date(d)?: return "date \(d.bitPattern)"
        case let other?: return "\(other.type) \(other)" + (other.binaryValue.map { " \($0)" } ?? "")
        case nil: return "nil"
        }
    }

    /// Decimals compare and sort as numbers in fetches (their column holds an order-preserving
    /// key), floats and the narrow integers as theirs.
    @Test func decimalsSortAndCompareExactly() throws {
        let cloud = try TestCloud(model: Self.model, contentName: "Things")
        let peer = try cloud.peer("a")
        let context = peer.newContext()
        let texts = ["-10.5", "-2", "0", "0.001", "3.14", "3.140000000000000000000000000000000001", "100", "1E+40", "-1E-20", "99.99"]
        for (index, text) in texts.enumerated() {
            try context.insert("Thing", key: "d\(index)")["amount"] = .decimal(DecimalNumber(text)!)
        }
        try context.save()
        let entity = try Self.model.entity(named: "Thing")
        let sorted = try peer.store.fetch(FetchRequest(entity: "Thing", sortDescriptors: [FetchSortDescriptor("amount")]))
            .compactMap { $0.values["amount"]??.decimalValue }
        #expect(sorted == texts.map { DecimalNumber($0)! }.sorted())
        #expect(sorted.map(\.description) == ["-10.5", "-2", "-0.00000000000000000001", "0", "0.001", "3.14",
                                              "3.140000000000000000000000000000000001", "99.99", "100",
                                              "1E+40"])
        let above = try peer.store.fetch(FetchRequest(entity: "Thing", predicate: try FetchPredicate.parse("amount > 3.14", entity: entity)))
        #expect(Set(above.map(\.id.key)) == ["d5", "d6", "d7", "d9"])
        let equal = try peer.store.fetch(FetchRequest(entity: "Thing", predicate: try FetchPredicate.parse("amount == 3.140", entity: entity)))
        #expect(equal.map(\.id.key) == ["d4"], "3.140 is the number 3.14")
        #expect(throws: PredicateParseError.self) { try FetchPredicate.parse("amount CONTAINS 3", entity: entity) }
    }
}
