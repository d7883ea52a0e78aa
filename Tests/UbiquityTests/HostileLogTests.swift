import Foundation
import Testing
import UbiquityPlist
@testable import Ubiquity
@testable import UbiquityCore
import UbiquityTestSupport

/// A buggy or hostile peer's logs that verify (their checksums match) but hold what the model
/// or the store cannot take: each is quarantined with its reason, its author's later logs wait
/// for it, and every other peer's logs and every local save go on.
@Suite("Logs that verify but break the model are quarantined alone")
struct HostileLogTests {
    /// A model with a value of every kind a buggy peer can get wrong.
    static let model = try! ObjectModel(name: "Hostile", entities: [
        EntityDescription("Item", attributes: [
            AttributeDescription("name", .string, optional: false, default: .string("")),
            AttributeDescription("count", .integer),
            AttributeDescription("ratio", .double),
            AttributeDescription("when", .date),
        ]),
    ])

    static let buggy = "buggy~00000000-0000-0000-0000-00000000b0b0"

    /// What the buggy peer gets wrong in its first log, and what the reason must say.
    enum Damage: String, CaseIterable, CustomTestStringConvertible {
        case nanTransactionDate, nanDate, infiniteRatio, integerOutOfRange, stringForADate, unknownEntity, unknownAttribute
        case requiredAttributeAbsent, farFutureStamp, invalidObjectID

        var testDescription: String { rawValue }

        var reason: String {
            switch self {
            case .nanTransactionDate: return "'transactionDate' is missing or not a finite number"
            case .nanDate: return "breaks the model: Item.when is not a finite number"
            case .infiniteRatio: return "breaks the model: Item.ratio is not a finite number"
            case .integerOutOfRange: return "value of 'count' (18446744073709551615) is out of the range of integer"
            case .stringForADate: return "value of 'when' is a string, not date"
            case .unknownEntity: return "unknown entity 'Ghost'"
            case .unknownAttribute: return "sets unknown attribute 'colour'"
            case .requiredAttributeAbsent: return "breaks the model: Item.name is required and has no value"
            case .farFutureStamp: return "more than 24 hours ahead of this machine's clock"
            case .invalidObjectID: return "invalid object ID"
            }
        }
    }

    /// Writes log `number` of the buggy peer, checksummed after `edit` changed its fields.
    static func writeBuggyLog(number: Int64, in location: ContainerLocation, store: PersistentStore, stamp: Stamp? = nil,
                              edit: (inout [String: PlistValue]) -> Void = { _ in }) throws {
        let log = TransactionLog(
            peerID: buggy, transactionNumber: number, knowledge: KnowledgeVector([buggy: number]),
            stamp: stamp ?? Stamp(wallMilliseconds: Int64(store.now * 1000) + number, counter: 0, peerID: buggy),
            transactionDate: store.now, modelVersionHash: model.hash, storeName: store.storeName, contentName: store.contentName,
            inserted: [ChangeRecord(id: try GlobalID(entity: "Item", key: "buggy-\(number)"), values: ["name": .string("buggy \(number)")])],
            updated: [], deleted: [])
        var fields = log.payload()
        edit(&fields)
        fields["checksum"] = .string(CanonicalEncoding.sha256Hex(of: .dictionary(fields)))
        try AtomicFile.makeDirectory(location.logDirectory(of: buggy))
        try AtomicFile.write(PlistSeam.encode(.dictionary(fields), format: .binary), to: location.logDirectory(of: buggy) + "/" + log.fileName)
    }

    static func damage(_ damage: Damage, number: Int64, location: ContainerLocation, store: PersistentStore) throws {
        func setValue(_ name: String, _ value: PlistValue) -> (inout [String: PlistValue]) -> Void {
            { fields in
                guard case var .array(records)? = fields["inserted"], case var .dictionary(record) = records[0],
                      case var .dictionary(values)? = record["values"] else { return }
                values[name] = value
                record["values"] = .dictionary(values)
                records[0] = .dictionary(record)
                fields["inserted"] = .array(records)
            }
        }
        switch damage {
        case .nanTransactionDate:
            try writeBuggyLog(number: number, in: location, store: store) { $0["transactionDate"] = .real(.nan) }
        case .nanDate:
            try writeBuggyLog(number: number, in: location, store: store, edit: setValue("when", .real(.nan)))
        case .infiniteRatio:
            try writeBuggyLog(number: number, in: location, store: store, edit: setValue("ratio", .real(.infinity)))
        case .integerOutOfRange:
            try writeBuggyLog(number: number, in: location, store: store, edit: setValue("count", .unsignedInteger(.max)))
        case .stringForADate:
            try writeBuggyLog(number: number, in: location, store: store, edit: setValue("when", .string("tomorrow")))
        case .unknownAttribute:
            try writeBuggyLog(number: number, in: location, store: store, edit: setValue("colour", .string("red")))
        case .requiredAttributeAbsent:
            try writeBuggyLog(number: number, in: location, store: store, edit: setValue("name", .dictionary([:])))
        case .unknownEntity:
            try writeBuggyLog(number: number, in: location, store: store) { fields in
                fields["inserted"] = .array([.dictionary(["gid": .string("Ghost/1"), "entity": .string("Ghost"), "values": .dictionary([:])])])
            }
        case .invalidObjectID:
            try writeBuggyLog(number: number, in: location, store: store) { fields in
                fields["deleted"] = .array([.dictionary(["gid": .string("Item/../../etc/passwd\u{1}"), "entity": .string("Item")])])
            }
        case .farFutureStamp:
            try writeBuggyLog(number: number, in: location, store: store, stamp: Stamp("9999999999999999.99999998.\(buggy)"))
        }
    }

    static func save(_ peer: UbiquityPeer, _ key: String) throws {
        let context = peer.newContext()
        try context.insert("Item", key: key)["name"] = .string(key)
        try context.save()
    }

    static func names(_ peer: UbiquityPeer) throws -> [String] {
        try peer.store.fetch(FetchRequest(entity: "Item")).map(\.id.key).sorted()
    }

    @Test(arguments: Damage.allCases)
    func aDamagedLogIsQuarantinedAndEverythingElseGoesOn(_ damage: Damage) throws {
        let cloud = try TestCloud(model: Self.model)
        let reader = try cloud.peer("reader"), honest = try cloud.peer("honest")
        let location = try #require(reader.location)
        try Self.save(honest, "h1")
        // The buggy peer's first log is damaged; its second one is fine but comes after it.
        try Self.damage(damage, number: 1, location: location, store: reader.store)
        try Self.writeBuggyLog(number: 2, in: location, store: reader.store)
        try Self.save(reader, "r1")

        let first = try reader.sync()
        #expect(first.imported.quarantined.count == 1, "\(first.imported.quarantined)")
        #expect(first.imported.quarantined.first?.reason.contains(damage.reason) == true, "\(first.imported.quarantined)")
        #expect(first.imported.applied.map(\.peerID) == [honest.peerID], "the honest peer's log came in")
        #expect(first.imported.waiting == 1)
        let wait = try #require(first.imported.missingPredecessors.first)
        #expect(wait.peerID == Self.buggy && wait.number == 1 && wait.quarantineReason?.contains(damage.reason) == true,
                "reported as waiting for a quarantined predecessor: \(first.imported.missingPredecessors)")

        // Local saves and every honest peer's logs keep flowing, both ways.
        try Self.save(reader, "r2")
        try Self.save(honest, "h2")
        _ = try reader.sync()
        let honestSync = try honest.sync()
        #expect(honestSync.imported.quarantined.count == 1, "the honest peer sets it aside too")
        _ = try reader.sync()
        #expect(try Self.names(reader) == ["h1", "h2", "r1", "r2"])
        #expect(try reader.dumpText() == honest.dumpText())
        #expect(reader.store.knowledge[Self.buggy] == 0)
        // The reader's clock never moved toward the bad stamp: its stamps still read back everywhere.
        let stamps = try reader.store.transactionHistory().filter(\.isLocal).map(\.stamp)
        #expect(stamps.allSatisfy { Stamp($0).map { !$0.isTooFarAhead(of: reader.store.now) } ?? false }, "\(stamps)")

        // Known bad, unchanged: the next sync does not even read it.
        let counter = ReadCounter()
        try ReadCounter.$current.withValue(counter) { _ = try reader.sync() }
        let buggyReads = counter.reads.filter { $0.contains(Self.buggy) }
        #expect(buggyReads.isEmpty, "\(buggyReads)")
    }

    /// Logs nested far deeper than any log is, in both formats: set aside with the reason,
    /// never a stack overflow.
    @Test func deeplyNestedLogsAreQuarantined() throws {
        let cloud = try TestCloud(model: Self.model)
        let reader = try cloud.peer("reader")
        let folder = try #require(reader.location).logDirectory(of: Self.buggy)
        try AtomicFile.makeDirectory(folder)
        let xml = "<?xml version=\"1.0\"?><plist version=\"1.0\">" + String(repeating: "<array>", count: 50_000) + String(repeating: "</array>", count: 50_000) + "</plist>"
        try AtomicFile.write(Array(xml.utf8), to: folder + "/" + TransactionLog.fileName(number: 1))
        var binary: [UInt8] = Array("bplist00".utf8)
        // 3,000 one-element arrays, each pointing at the next (object refs of two bytes).
        let count = 3_000
        var offsets: [Int] = []
        for index in 0..<count {
            offsets.append(binary.count)
            if index == count - 1 { binary += [0xA0] } else { binary += [0xA1, UInt8((index + 1) >> 8), UInt8((index + 1) & 0xFF)] }
        }
        let table = binary.count
        for offset in offsets { binary += [UInt8(offset >> 8), UInt8(offset & 0xFF)] }
        binary += [0, 0, 0, 0, 0, 0, 2, 2] + [0, 0, 0, 0, 0, 0, UInt8(count >> 8), UInt8(count & 0xFF)] + [UInt8](repeating: 0, count: 8)
            + [0, 0, 0, 0, 0, 0, UInt8(table >> 8), UInt8(table & 0xFF)]
        try AtomicFile.write(binary, to: folder + "/" + TransactionLog.fileName(number: 2))
        let report = try reader.importAvailable()
        #expect(report.quarantined.count == 2, "\(report.quarantined)")
        #expect(report.quarantined.allSatisfy { $0.reason.contains("depth") }, "\(report.quarantined)")
    }

    /// A log that verifies but that SQLite refuses (here a trigger plays a constraint the
    /// store breaks) is rolled back alone: the other peers' logs of the same batch apply, the
    /// logs that had seen it wait, and once the file changes it is tried again.
    @Test func aLogTheStoreRefusesIsRolledBackAlone() throws {
        let cloud = try TestCloud(model: Self.model)
        let reader = try cloud.peer("reader"), honest = try cloud.peer("honest")
        let location = try #require(reader.location)
        try Self.writeBuggyLog(number: 1, in: location, store: reader.store)
        try Self.save(honest, "h1")
        _ = try honest.sync()                       // the honest peer applies the buggy log…
        try Self.save(honest, "h2")                 // …so this log of its depends on it
        try reader.store.database.execute("""
            CREATE TEMP TRIGGER refuse BEFORE INSERT ON Z_TRANSACTIONS WHEN NEW.peer = '\(Self.buggy)'
            BEGIN SELECT RAISE(ABORT, 'refused by the test'); END
            """)

        let first = try reader.sync()
        let refused = try #require(first.imported.quarantined.first)
        #expect(first.imported.quarantined.count == 1 && refused.reason.contains("refused by the test"), "\(first.imported.quarantined)")
        #expect(first.imported.applied.map { "\($0.peerID):\($0.number)" } == ["\(honest.peerID):1"], "h1 applies, h2 waits")
        #expect(first.imported.waiting == 1)
        #expect(try Self.names(reader) == ["h1"])
        try Self.save(reader, "r1")
        _ = try honest.sync()
        #expect(try Self.names(honest).contains("r1"), "the reader's saves still propagate")

        // The constraint is gone and the file changes (a file-sync tool delivers it again).
        try reader.store.database.execute("DROP TRIGGER refuse")
        let path = location.ubiquityRoot + "/" + refused.path
        try AtomicFile.write(try AtomicFile.read(path, limit: 1 << 20), to: path)
        let healed = try reader.sync()
        #expect(healed.imported.applied.count == 2 && healed.imported.waiting == 0, "\(healed.imported.applied)")
        #expect(try reader.store.quarantined().isEmpty)
        _ = try honest.sync()
        #expect(try reader.dumpText() == honest.dumpText())
    }

    /// Handed to the store past the importer, a log stamped too far ahead is still refused,
    /// with its own reason, and its stamp is not adopted by the clock.
    @Test func theStoreRefusesAStampTooFarAheadByItself() throws {
        let cloud = try TestCloud(model: Self.model)
        let reader = try cloud.peer("reader")
        let store = reader.store
        let stamp = Stamp(wallMilliseconds: Int64((store.now + 2 * Stamp.maximumLead) * 1000), counter: 0, peerID: Self.buggy)
        let log = TransactionLog(
            peerID: Self.buggy, transactionNumber: 1, knowledge: KnowledgeVector([Self.buggy: 1]), stamp: stamp,
            transactionDate: store.now, modelVersionHash: Self.model.hash, storeName: store.storeName, contentName: store.contentName,
            inserted: [ChangeRecord(id: try GlobalID(entity: "Item", key: "ahead"), values: ["name": .string("ahead")])],
            updated: [], deleted: [])
        let application = try store.applyImported([log])
        let expected = StoreError.stampTooFarAhead(peer: Self.buggy, number: 1, stamp: stamp)
        #expect(application.refused.map(\.reason) == ["the store refused it: \(expected)"])
        #expect(expected.description.hasPrefix("transaction 1 of \(Self.buggy) is stamped "))
        #expect(try store.snapshot(of: try GlobalID(entity: "Item", key: "ahead")) == nil)
    }

    /// A log stamped too far ahead waits in quarantine only as long as the stamp is too far
    /// ahead: once this machine's clock has come near enough it is tried again and applied.
    @Test func aStampTooFarAheadIsTriedAgainWhenTheClockCatchesUp() throws {
        let cloud = try TestCloud(model: Self.model)
        let reader = try cloud.peer("reader")
        let location = try #require(reader.location)
        let ahead = reader.store.now + 2 * Stamp.maximumLead
        try Self.writeBuggyLog(number: 1, in: location, store: reader.store,
                               stamp: Stamp(wallMilliseconds: Int64(ahead * 1000), counter: 0, peerID: Self.buggy))
        #expect(try reader.sync().imported.quarantined.count == 1)
        #expect(try reader.sync().imported.quarantined.isEmpty, "still in quarantine, not reported again")
        reader.store.wallClock = WallClock.system.skewed(by: 1.5 * Stamp.maximumLead)
        let later = try reader.sync()
        #expect(later.imported.applied.map(\.peerID) == [Self.buggy])
    }
}
