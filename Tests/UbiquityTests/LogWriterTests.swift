import Crypto
import Foundation
import Testing
import UbiquityBase
import UbiquityPlist
import UbiquityTestSupport
@testable import Ubiquity
@testable import UbiquityCore

/// A save writes its log with `TransactionLogWriter` (one walk, no plist tree). Its bytes must be
/// those of the tree's writer (`encoded(format: .binary)`) for every log, byte for byte: peers
/// of earlier builds, a log written again from its copy and `ubiq log` all expect them.
@Suite("The log writer writes the tree writer's bytes")
struct LogWriterTests {
    @Test(arguments: SeededGenerator.testSeeds(Array(1 ... 40)))
    func randomLogsEncodeAlike(seed: UInt64) throws {
        var random = SeededGenerator(seed: seed)
        let log = try LogReaderAgreementTests.randomLog(&random)
        #expect(log.encodedBinary() == log.encoded(format: .binary), "seed \(seed): the log writer's bytes differ from the tree writer's")
    }

    /// Empty logs, a log of deletions only, and strings that recur (shared objects).
    @Test func edgeShapesEncodeAlike() throws {
        let model = LogReaderAgreementTests.model, peer = LogReaderAgreementTests.peer
        let item = try GlobalID(entity: "Item", key: "same")
        func log(_ inserted: [ChangeRecord], _ updated: [ChangeRecord], _ deleted: [GlobalID], epoch: String?) -> TransactionLog {
            TransactionLog(peerID: peer, transactionNumber: 3, knowledge: KnowledgeVector([peer: 3]),
                           stamp: Stamp(wallMilliseconds: 1_700_000_000_000, counter: 2, peerID: peer), transactionDate: 1_700_000_000,
                           modelVersionHash: model.hash, storeName: "Item", contentName: "same", inserted: inserted, updated: updated,
                           deleted: deleted, contentEpoch: epoch)
        }
        let record = ChangeRecord(id: item, values: ["name": .string("same"), "ref": nil, "count": .integer(3)])
        for shape in [log([], [], [], epoch: nil), log([], [], [item, item], epoch: "e"), log([record, record], [record], [item], epoch: "Item"),
                      log((0 ..< 300).map { _ in record }, [], [], epoch: nil)] {
            #expect(shape.encodedBinary() == shape.encoded(format: .binary))
        }
    }

    /// Records whose value names change from one to the next (same count, other names; names
    /// that are prefixes of others) and records of several to-ones, set and cleared: the writer
    /// reuses the last record's name order and writes to-ones without a tree only when that
    /// gives the tree's bytes.
    @Test(arguments: SeededGenerator.testSeeds(Array(1 ... 20)))
    func changingNamesAndToOnesEncodeAlike(seed: UInt64) throws {
        var random = SeededGenerator(seed: seed)
        let model = LogReaderAgreementTests.model, peer = LogReaderAgreementTests.peer
        let names = ["a", "ab", "b", "é", "z", "Zed", "a b"]
        let records = try (0 ..< Int.random(in: 1 ... 30, using: &random)).map { index in
            var values: [String: AttributeValue?] = [:]
            for name in names.shuffled(using: &random).prefix(Int.random(in: 0 ... 3, using: &random)) {
                values[name] = Bool.random(using: &random) ? .string(Bool.random(using: &random) ? "same" : "v\(index)") : nil
            }
            var relationships: [String: RelationshipChange] = [:]
            for name in ["owner", "box", "b", "owner2"].shuffled(using: &random).prefix(Int.random(in: 0 ... 3, using: &random)) {
                relationships[name] = .toOne(Bool.random(using: &random) ? try GlobalID(entity: "Box", key: "k\(Int.random(in: 0 ... 3, using: &random))") : nil)
            }
            return ChangeRecord(id: try GlobalID(entity: "Item", key: "i\(index)"), values: values, relationships: relationships)
        }
        let log = TransactionLog(peerID: peer, transactionNumber: 5, knowledge: KnowledgeVector([peer: 5]),
                                 stamp: Stamp(wallMilliseconds: 1_700_000_000_000, counter: 0, peerID: peer), transactionDate: 1_700_000_000,
                                 modelVersionHash: model.hash, storeName: "Store", contentName: "Content", inserted: records,
                                 updated: records.reversed(), deleted: [], contentEpoch: nil)
        #expect(log.encodedBinary() == log.encoded(format: .binary), "seed \(seed): the log writer's bytes differ from the tree writer's")
    }

    /// Records laid out by attribute index (a save's new objects), in turns of two layouts
    /// (two entities), with values set, set to nil and not set, among records by name: the
    /// writer orders a layout's values once per layout and set of values, and must give the
    /// tree writer's bytes, the same as for the records by name.
    @Test(arguments: SeededGenerator.testSeeds(Array(1 ... 20)))
    func laidOutRecordsEncodeAsByName(seed: UInt64) throws {
        var random = SeededGenerator(seed: seed)
        let model = LogReaderAgreementTests.model, peer = LogReaderAgreementTests.peer
        let layouts = [AttributeLayout(names: ["title", "a", "é", "Zed", "ab", "a b"]), AttributeLayout(names: ["z", "b"])]
        let records = try (0 ..< Int.random(in: 1 ... 40, using: &random)).map { index in
            let id = try GlobalID(entity: "Item", key: "i\(index)")
            let relationships: [String: RelationshipChange] = Bool.random(using: &random) ? ["owner": .toOne(nil)] : [:]
            let layout = layouts[Int.random(in: 0 ... 3, using: &random) == 0 ? 1 : 0]
            // Mostly every value set, as a save's records are; now and then some left out.
            let full = Int.random(in: 0 ... 2, using: &random) > 0
            let values: [AttributeValue??] = layout.names.map { _ in
                if !full, Bool.random(using: &random) { return .none }
                return Bool.random(using: &random) ? .some(.string(Bool.random(using: &random) ? "same" : "v\(index)")) : .some(nil)
            }
            if Int.random(in: 0 ... 4, using: &random) == 0 {
                var named: [String: AttributeValue?] = [:]
                for (offset, value) in values.enumerated() { if case let .some(value) = value { named[layout.names[offset]] = .some(value) } }
                return ChangeRecord(id: id, values: named, relationships: relationships)
            }
            return ChangeRecord(id: id, layout: layout, values: values, relationships: relationships)
        }
        func log(_ records: [ChangeRecord]) -> TransactionLog {
            TransactionLog(peerID: peer, transactionNumber: 5, knowledge: KnowledgeVector([peer: 5]),
                           stamp: Stamp(wallMilliseconds: 1_700_000_000_000, counter: 0, peerID: peer), transactionDate: 1_700_000_000,
                           modelVersionHash: model.hash, storeName: "Store", contentName: "Content", inserted: records,
                           updated: [], deleted: [], contentEpoch: nil)
        }
        let byName = records.map { ChangeRecord(id: $0.id, values: $0.values, relationships: $0.relationships) }
        let bytes = log(records).encodedBinary()
        #expect(bytes == log(records).encoded(format: .binary), "seed \(seed): the log writer's bytes differ from the tree writer's")
        #expect(bytes == log(byName).encodedBinary(), "seed \(seed): laid-out records are written otherwise than the same records by name")
    }

    /// A fixed log's bytes, pinned: a change to how logs are written shows here first.
    @Test func aFixedLogKeepsItsBytes() throws {
        let peer = "pinned~00000000-0000-0000-0000-000000000001"
        let owner = try GlobalID(entity: "Box", key: "box")
        let tag = try GlobalID(entity: "Tag", key: "t1")
        let item = ChangeRecord(id: try GlobalID(entity: "Item", key: "i1"),
                                values: ["name": .string("Zoë 漢字 🙂"), "count": .integer(-7), "ratio": .double(0.5), "share": .float(1.25),
                                         "when": .date(secondsSince1970: 1_234_567_890.5), "done": .boolean(true), "blob": .binary([0, 1, 255]),
                                         "ref": nil, "low": .integer(Int64.max), "high": .integer(0)],
                                relationships: ["owner": .toOne(owner), "tags": .toMany(added: [tag], removed: [])],
                                positions: ["tags": [tag: "a0"]])
        let update = ChangeRecord(id: try GlobalID(entity: "Item", key: "i2"), values: ["name": .string("")], relationships: ["owner": .toOne(nil)])
        let log = TransactionLog(peerID: peer, transactionNumber: 42, knowledge: KnowledgeVector([peer: 42, "other~2": 5]),
                                 stamp: Stamp(wallMilliseconds: 1_700_000_000_123, counter: 1, peerID: peer), transactionDate: 1_700_000_000.125,
                                 modelVersionHash: "hash", storeName: "Store", contentName: "Content", inserted: [item], updated: [update],
                                 deleted: [try GlobalID(entity: "Tag", key: "gone")], contentEpoch: "epoch-7")
        let digest = SHA256.hash(data: log.encodedBinary()).map { String(format: "%02x", $0) }.joined()
        #expect(log.encodedBinary() == log.encoded(format: .binary))
        #expect(digest == "335359239c23fe0b6992aa6fc1acedd41081e38ccc66f077af1d7462f7cec6f0", "the bytes of a fixed log changed")
    }

    /// What a save puts in the outbox is the tree writer's encoding of the log it returns,
    /// whether the log was encoded on the saving thread or beside the rows on another one.
    @Test(arguments: [20, 300])
    func aSaveQueuesTheTreeWritersBytes(objects: Int) throws {
        let cloud = try TestCloud()
        let peer = try cloud.peer("phone", policy: nil)
        let context = ObjectContext(store: peer.store)
        for index in 0 ..< objects {
            let note = try context.insert("Note", key: "n\(index)")
            note["title"] = .string("title \(index)")
        }
        let log = try #require(try context.save())
        let queued = try #require(try peer.store.pendingOutbox().last)
        #expect(queued.bytes == log.encoded(format: .binary))
        _ = cloud
    }
}
