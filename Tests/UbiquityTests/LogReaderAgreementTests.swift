import Foundation
import Testing
import UbiquityPlist
@testable import Ubiquity
@testable import UbiquityCore

/// A binary log has two readers: the object-table reader (`TransactionLog.decodeObjectTable`,
/// the fast path) and the tree reader (`PlistSeam.decode`, then `TransactionLog(plist:model:)`),
/// which reads every log the first declines and so gives every error. They must agree: on a
/// valid log both read the same log; a damaged log the fast path accepts is one the tree
/// reader accepts with the same content; `TransactionLog(decoding:)` always answers as the
/// tree reader does, error for error.
@Suite("The object-table log reader agrees with the tree reader")
struct LogReaderAgreementTests {
    /// Every kind of value, an optional attribute, a merge group, to-one, to-many and ordered relationships.
    static let model = try! ObjectModel(name: "Agreement", entities: [
        EntityDescription("Item", attributes: [
            AttributeDescription("name", .string, optional: false, default: .string("")),
            AttributeDescription("count", .integer32),
            AttributeDescription("ratio", .double),
            AttributeDescription("share", .float),
            AttributeDescription("when", .date),
            AttributeDescription("done", .boolean),
            AttributeDescription("blob", .binary),
            AttributeDescription("ref", .uuid),
            AttributeDescription("low", .integer),
            AttributeDescription("high", .integer),
            // Rules of its own: the fast path types its values but leaves the check to `validate`.
            AttributeDescription("rating", .integer16, validation: AttributeValidation(minimum: .integer(0), maximum: .integer(5))),
            AttributeDescription("code", .string, validation: AttributeValidation(maxLength: 3)),
        ], relationships: [
            RelationshipDescription("owner", destination: "Box", inverse: "items"),
            RelationshipDescription("tags", destination: "Tag", inverse: "items", toMany: true, ordered: true),
        ], mergeGroups: [["low", "high"]]),
        EntityDescription("Box", relationships: [RelationshipDescription("items", destination: "Item", inverse: "owner", toMany: true)]),
        EntityDescription("Tag", relationships: [RelationshipDescription("items", destination: "Item", inverse: "tags", toMany: true)]),
    ])

    static let peer = "author~00000000-0000-0000-0000-0000000000a1"

    /// A log of random records drawn from `random`.
    static func randomLog(_ random: inout SeededGenerator) throws -> TransactionLog {
        func text() -> String {
            let alphabet = Array("abc xyz-é漢字🙂\u{1}\"<&>")
            return String((0 ..< Int.random(in: 0 ... 40, using: &random)).map { _ in alphabet.randomElement(using: &random)! })
        }
        func id(_ entity: String) throws -> GlobalID { try GlobalID(entity: entity, key: "k\(Int.random(in: 0 ..< 50, using: &random))") }
        func record() throws -> ChangeRecord {
            var values: [String: AttributeValue?] = ["name": .string(text())]
            if Bool.random(using: &random) { values["count"] = .integer(Int64.random(in: Int64(Int32.min) ... Int64(Int32.max), using: &random)) }
            if Bool.random(using: &random) { values["ratio"] = Bool.random(using: &random) ? .double(.random(in: -1e9 ... 1e9, using: &random)) : nil }
            if Bool.random(using: &random) { values["share"] = .float(Float.random(in: -10 ... 10, using: &random)) }
            if Bool.random(using: &random) { values["when"] = .date(secondsSince1970: Double(Int.random(in: 0 ... 2_000_000_000, using: &random)) + 0.25) }
            if Bool.random(using: &random) { values["done"] = .boolean(Bool.random(using: &random)) }
            if Bool.random(using: &random) { values["blob"] = .binary((0 ..< Int.random(in: 0 ... 20, using: &random)).map { _ in UInt8.random(in: 0 ... 255, using: &random) }) }
            if Bool.random(using: &random) { values["ref"] = .uuid(UUID(uuid: (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, UInt8.random(in: 0 ... 255, using: &random)))) }
            if Bool.random(using: &random) { values["rating"] = Bool.random(using: &random) ? .integer(Int64.random(in: 0 ... 5, using: &random)) : nil }
            if Bool.random(using: &random) { values["code"] = .string(String((0 ..< Int.random(in: 0 ... 3, using: &random)).map { _ in "aé".randomElement(using: &random)! })) }
            if Bool.random(using: &random) {
                values["low"] = .integer(Int64.random(in: Int64.min ... Int64.max, using: &random))
                values["high"] = nil as AttributeValue?
            }
            var change = ChangeRecord(id: try id("Item"), values: values)
            if Bool.random(using: &random) { change.relationships["owner"] = .toOne(Bool.random(using: &random) ? try id("Box") : nil) }
            if Bool.random(using: &random) {
                let added = try (0 ..< Int.random(in: 0 ... 3, using: &random)).map { _ in try id("Tag") }
                change.relationships["tags"] = .toMany(added: added, removed: try (0 ..< Int.random(in: 0 ... 2, using: &random)).map { _ in try id("Tag") })
                if let first = added.first { change.positions["tags"] = [first: OrderKey.between(nil, nil, peer: peer)] }
            }
            return change
        }
        let number = Int64.random(in: 1 ... 1_000, using: &random)
        return TransactionLog(
            peerID: peer, transactionNumber: number, knowledge: KnowledgeVector([peer: number, "other~1": 7]),
            stamp: Stamp(wallMilliseconds: 1_700_000_000_000 + number, counter: 0, peerID: peer),
            transactionDate: 1_700_000_000.5, modelVersionHash: model.hash, storeName: "Store", contentName: "Content",
            inserted: try (0 ..< Int.random(in: 0 ... 8, using: &random)).map { _ in try record() },
            updated: try (0 ..< Int.random(in: 0 ... 8, using: &random)).map { _ in try record() },
            deleted: try (0 ..< Int.random(in: 0 ... 3, using: &random)).map { _ in try id("Box") },
            contentEpoch: Bool.random(using: &random) ? "epoch-1" : nil)
    }

    /// What the tree reader makes of `bytes`.
    /// A record of an `Item` with a name, as a log holds it.
    static func item(_ gid: String, entity: PlistValue? = nil, relationships: [String: PlistValue] = [:]) -> PlistValue {
        var fields: [String: PlistValue] = ["gid": .string(gid), "values": .dictionary(["name": .string("n")]), "relationships": .dictionary(relationships)]
        fields["entity"] = entity
        return .dictionary(fields)
    }

    static func treeRead(_ bytes: [UInt8]) -> Result<TransactionLog, LogError> {
        Result { () throws(LogError) in
            let plist: PlistValue
            do { plist = try PlistSeam.decode(bytes) } catch { throw .unparseable("\(error)") }
            return try TransactionLog(plist: plist, model: model)
        }
    }

    static func fastRead(_ bytes: [UInt8]) -> TransactionLog? {
        bytes.withUnsafeBufferPointer { TransactionLog.decodeObjectTable($0, model: model) }
    }

    /// Checks the agreement on `bytes`; `expectValid` when the bytes are a log as written.
    static func checkAgreement(_ bytes: [UInt8], seed: UInt64, what: String, original: TransactionLog? = nil) {
        let tree = treeRead(bytes)
        let fast = fastRead(bytes)
        let public_ = Result { () throws(LogError) in try TransactionLog(decoding: bytes, model: model) }
        #expect(public_ == tree, "seed \(seed), \(what): TransactionLog(decoding:) differs from the tree reader")
        if let fast {
            #expect(tree == .success(fast), "seed \(seed), \(what): the fast path accepted what the tree reader reads otherwise: \(tree)")
        }
        if let original {
            #expect(fast == original, "seed \(seed), \(what): the fast path declined or misread a valid log")
            #expect(tree == .success(original), "seed \(seed), \(what): the tree reader misread a valid log")
        }
    }

    @Test(arguments: SeededGenerator.testSeeds([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16]))
    func validLogsReadAlikeAndDamageIsJudgedAlike(seed: UInt64) throws {
        var random = SeededGenerator(seed: seed)
        let log = try Self.randomLog(&random)
        let bytes = log.encoded(format: .binary)
        Self.checkAgreement(bytes, seed: seed, what: "valid log", original: log)

        // Bytes flipped anywhere (header, objects, offset table, trailer), and truncations.
        for round in 0 ..< 300 {
            var damaged = bytes
            for _ in 0 ..< Int.random(in: 1 ... 3, using: &random) {
                let position = Int.random(in: 0 ..< damaged.count, using: &random)
                damaged[position] ^= UInt8.random(in: 1 ... 255, using: &random)
            }
            Self.checkAgreement(damaged, seed: seed, what: "flip round \(round)")
        }
        for _ in 0 ..< 20 {
            Self.checkAgreement(Array(bytes.prefix(Int.random(in: 0 ..< bytes.count, using: &random))), seed: seed, what: "truncated")
        }
    }

    /// Logs whose checksum matches but whose content the model refuses: neither reader accepts
    /// them and the error is the tree reader's, word for word.
    @Test(arguments: SeededGenerator.testSeeds([21, 22, 23]))
    func checksummedHostileLogsAreRefusedAlike(seed: UInt64) throws {
        var random = SeededGenerator(seed: seed)
        let log = try Self.randomLog(&random)
        let edits: [(String, (inout [String: PlistValue]) -> Void)] = [
            ("format 2", { $0["format"] = .integer(2) }),
            ("no peerID", { $0["peerID"] = nil }),
            ("NaN date", { $0["transactionDate"] = .real(.nan) }),
            ("inserted not an array", { $0["inserted"] = .string("x") }),
            ("unknown attribute", { $0["inserted"] = .array([.dictionary(["gid": .string("Item/p/x"), "entity": .string("Item"), "values": .dictionary(["colour": .string("red")])])]) }),
            ("string for a date", { $0["updated"] = .array([.dictionary(["gid": .string("Item/p/x"), "values": .dictionary(["name": .string("n"), "when": .string("today")])])]) }),
            ("integer out of range", { $0["updated"] = .array([.dictionary(["gid": .string("Item/p/x"), "values": .dictionary(["name": .string("n"), "count": .integer(1 << 40)])])]) }),
            // Each check the fast path makes itself when typing a value from its object.
            ("required value absent", { $0["inserted"] = .array([.dictionary(["gid": .string("Item/p/x"), "values": .dictionary(["name": .dictionary([:])])])]) }),
            ("NaN double", { $0["updated"] = .array([.dictionary(["gid": .string("Item/p/x"), "values": .dictionary(["name": .string("n"), "ratio": .real(.nan)])])]) }),
            ("infinite date", { $0["updated"] = .array([.dictionary(["gid": .string("Item/p/x"), "values": .dictionary(["name": .string("n"), "when": .real(.infinity)])])]) }),
            ("integer for a string", { $0["updated"] = .array([.dictionary(["gid": .string("Item/p/x"), "values": .dictionary(["name": .integer(1)])])]) }),
            ("real for a boolean", { $0["updated"] = .array([.dictionary(["gid": .string("Item/p/x"), "values": .dictionary(["name": .string("n"), "done": .real(1)])])]) }),
            ("integer out of Integer 16", { $0["updated"] = .array([.dictionary(["gid": .string("Item/p/x"), "values": .dictionary(["name": .string("n"), "rating": .integer(1 << 20)])])]) }),
            ("above the attribute's maximum", { $0["updated"] = .array([.dictionary(["gid": .string("Item/p/x"), "values": .dictionary(["name": .string("n"), "rating": .integer(6)])])]) }),
            ("longer than the attribute allows", { $0["updated"] = .array([.dictionary(["gid": .string("Item/p/x"), "values": .dictionary(["name": .string("n"), "code": .string("abcd")])])]) }),
            ("half a merge group", { $0["inserted"] = .array([.dictionary(["gid": .string("Item/p/x"), "values": .dictionary(["name": .string("n"), "low": .integer(1)])])]) }),
            ("unknown entity", { $0["deleted"] = .array([.dictionary(["gid": .string("Ghost/p/x")])]) }),
            ("wrong target", { $0["inserted"] = .array([.dictionary(["gid": .string("Item/p/x"), "values": .dictionary(["name": .string("n")]), "relationships": .dictionary(["owner": .string("Tag/p/t")])])]) }),
            ("extra top-level key", { $0["zzz"] = .array([.integer(1), .dictionary(["a": .null])]) }),
            // The fast path checks IDs on their bytes: each check of `GlobalID(_:)` and `objectID`.
            ("entity claims another", { $0["inserted"] = .array([Self.item("Item/p/x", entity: .string("Box"))]) }),
            ("entity claims a name not ASCII", { $0["inserted"] = .array([Self.item("Item/p/x", entity: .string("Itém"))]) }),
            ("DEL in a key", { $0["inserted"] = .array([Self.item("Item/a\u{7f}b")]) }),
            ("control character in a key", { $0["updated"] = .array([Self.item("Item/a\u{1}")]) }),
            ("empty key", { $0["inserted"] = .array([Self.item("Item/")]) }),
            ("key of 201 bytes", { $0["inserted"] = .array([Self.item("Item/" + String(repeating: "k", count: 201))]) }),
            ("no slash", { $0["inserted"] = .array([Self.item("Itemx")]) }),
            ("entity not an identifier", { $0["inserted"] = .array([Self.item("It em/x")]) }),
            ("gid not a string", { $0["inserted"] = .array([.dictionary(["gid": .integer(1), "values": .dictionary(["name": .string("n")])])]) }),
            ("invalid to-one target", { $0["inserted"] = .array([Self.item("Item/x", relationships: ["owner": .string("Box/\u{1}")])]) }),
            ("to-one set to a number", { $0["inserted"] = .array([Self.item("Item/x", relationships: ["owner": .integer(3)])]) }),
            ("unknown relationship", { $0["inserted"] = .array([Self.item("Item/x", relationships: ["nope": .dictionary([:])])]) }),
            ("to-many set to a target", { $0["inserted"] = .array([Self.item("Item/x", relationships: ["tags": .string("Tag/t")])]) }),
        ]
        for (what, edit) in edits {
            var fields = log.payload()
            edit(&fields)
            fields["checksum"] = .string(CanonicalEncoding.sha256Hex(of: .dictionary(fields)))
            let bytes = PlistSeam.encode(.dictionary(fields), format: .binary)
            Self.checkAgreement(bytes, seed: seed, what: what)
            if what == "extra top-level key" {
                #expect(Self.fastRead(bytes) != nil, "seed \(seed): a key this build does not know is covered by the checksum and ignored")
            } else {
                #expect(Self.fastRead(bytes) == nil, "seed \(seed), \(what): the fast path accepted a log the model refuses")
                #expect(throws: LogError.self) { try TransactionLog(decoding: bytes, model: Self.model) }
            }
        }
        // Records the fast path reads in part through the general functions (a key not ASCII, a
        // declared entity that is no string): read alike, and still read by the fast path.
        let accepted: [(String, PlistValue)] = [
            ("key not ASCII", Self.item("Item/é漢", entity: .string("Item"))),
            ("entity not a string", Self.item("Item/x", entity: .integer(1))),
            ("target not ASCII", Self.item("Item/x", relationships: ["owner": .string("Box/é")])),
            ("values typed through the general path", .dictionary(["gid": .string("Item/x"), "values": .dictionary([
                "name": .string("né"), "ratio": .integer(3), "share": .real(0.5), "when": .date(12.5),
                "rating": .dictionary([:]), "code": .string("ab"), "ref": .string("00000000-0000-0000-0000-000000000001"),
            ])])),
            ("to-one cleared and set", Self.item("Item/x", relationships: ["owner": .dictionary([:])])),
            ("to-one with a to-many", Self.item("Item/x", relationships: ["owner": .string("Box/b"), "tags": .dictionary(["add": .array([.string("Tag/t")])])])),
        ]
        for (what, record) in accepted {
            var fields = log.payload()
            fields["updated"] = .array([record])
            fields["checksum"] = .string(CanonicalEncoding.sha256Hex(of: .dictionary(fields)))
            let bytes = PlistSeam.encode(.dictionary(fields), format: .binary)
            Self.checkAgreement(bytes, seed: seed, what: what)
            #expect(Self.fastRead(bytes) != nil, "seed \(seed), \(what): the fast path declined a valid record")
            #expect((try? TransactionLog(decoding: bytes, model: Self.model)) != nil, "seed \(seed), \(what): a valid record was refused: \(Self.treeRead(bytes))")
        }

        // The same log with one value changed after checksumming: a checksum mismatch from both.
        var fields = log.payload()
        fields["checksum"] = .string(CanonicalEncoding.sha256Hex(of: .dictionary(fields)))
        fields["storeName"] = .string("Other")
        let altered = PlistSeam.encode(.dictionary(fields), format: .binary)
        Self.checkAgreement(altered, seed: seed, what: "altered")
        #expect(Result { () throws(LogError) in try TransactionLog(decoding: altered, model: Self.model) } == .failure(.checksumMismatch))
    }

    /// A log whose canonical form is many times the fast path's 16 KB hashing buffer, with a
    /// string and a blob longer than the buffer (hashed where they lie): its checksum still
    /// matches, so the fast path reads it, as the tree reader does.
    @Test(arguments: SeededGenerator.testSeeds([31, 32]))
    func largeLogsHashAcrossTheBuffer(seed: UInt64) throws {
        var random = SeededGenerator(seed: seed)
        var log = try Self.randomLog(&random)
        for index in 0 ..< 600 {
            let name = String(repeating: "n", count: Int.random(in: 0 ... 90, using: &random))
            log.inserted.append(ChangeRecord(id: try GlobalID(entity: "Item", key: "big\(index)"), values: ["name": .string(name)]))
        }
        let long = String(repeating: "é", count: Int.random(in: 9_000 ... 30_000, using: &random))
        let blob = (0 ..< Int.random(in: 17_000 ... 40_000, using: &random)).map { _ in UInt8.random(in: 0 ... 255, using: &random) }
        log.updated.append(ChangeRecord(id: try GlobalID(entity: "Item", key: "long"), values: ["name": .string(long), "blob": .binary(blob)]))
        let bytes = log.encoded(format: .binary)
        #expect(Self.fastRead(bytes) == log, "seed \(seed): the fast path declined or misread a large log")
        Self.checkAgreement(bytes, seed: seed, what: "large log", original: log)
    }
}
