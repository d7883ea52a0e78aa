import Foundation
import Testing
@testable import UbiquityCore
import UbiquityBase

/// `MergeEngine.insertIfNew` keeps its statement's bindings from one row to the next and binds
/// NULL to the columns a record leaves out: no value of an earlier row may leak into a later
/// one. Random inserts (fixed seeds) set random subsets of the attributes and the to-one, in
/// logs read back from their binary files (laid out) and as written (by name); every row must
/// hold exactly its record's values, and a writer in exactly the slots the record wrote.
@Suite("An imported insert holds only its own record's values")
struct MergeInsertBindingTests {
    static let time = WallClock { Date(timeIntervalSince1970: 1_800_000_000) }

    func store(_ directory: String, _ name: String) throws -> PersistentStore {
        let store = try PersistentStore(path: directory + "/\(name).sqlite", model: .notes, peerID: "peer~\(name)",
                                        storeName: "Store", contentName: "Notes")
        store.wallClock = Self.time
        return store
    }

    func randomInsert(_ number: Int, _ random: inout SeededGenerator) throws -> ChangeRecord {
        var values: [String: AttributeValue?] = [:], relationships: [String: RelationshipChange] = [:]
        // Title and pinned are required (a reader refuses a log without them); the others come and go.
        values["title"] = .string(Bool.random(using: &random) ? "title \(number)" : "a title long enough to need a buffer of its own, \(number)")
        if Bool.random(using: &random) { values["body"] = Bool.random(using: &random) ? .string("body of \(number), longer than a short string") : .some(nil) }
        if Bool.random(using: &random) { values["created"] = .date(secondsSince1970: Double(number) + 0.5) }
        values["pinned"] = .boolean(Bool.random(using: &random))
        if Bool.random(using: &random) { relationships["folder"] = .toOne(Bool.random(using: &random) ? try GlobalID(entity: "Folder", key: "f") : nil) }
        return ChangeRecord(id: try GlobalID(entity: "Note", key: "n\(number)"), values: values, relationships: relationships)
    }

    @Test(arguments: SeededGenerator.testSeeds([1, 2, 3, 4, 5, 6]))
    func rowsHoldTheirOwnValues(seed: UInt64) throws {
        let directory = NSTemporaryDirectory() + "merge-insert-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var random = SeededGenerator(seed: seed)

        let writer = try store(directory, "writer")
        var logs: [TransactionLog] = [], records: [ChangeRecord] = []
        for batch in 0..<6 {
            let inserted = try (0..<Int.random(in: 1...10, using: &random)).map { try randomInsert(batch * 100 + $0, &random) }
            records += inserted
            logs.append(try #require(try writer.commitLocal(inserted: inserted, updated: [], deleted: [])).log)
        }

        for (name, laidOut) in [("laid-out", true), ("named", false)] {
            let reader = try store(directory, name)
            let batch = try laidOut ? logs.map { try TransactionLog(decoding: $0.encoded(format: .binary), model: .notes) } : logs
            let application = try reader.applyImported(batch)
            #expect(application.applied.count == logs.count, "seed \(seed)")
            let table = try #require(reader.merge.tables["Note"])
            let names = ["title", "body", "created", "pinned"]
            for record in records {
                let columns = names.map { "a_" + $0 } + ["r_folder"] + table.slots.map { "w_" + $0.name }
                let statement = try reader.database.statement("SELECT " + columns.map(SQLiteDatabase.quote).joined(separator: ", ") + " FROM E_Note WHERE gid = ?")
                try statement.bind(record.id.description, at: 1)
                #expect(try statement.step(), "seed \(seed): \(record.id) has a row")
                for (index, attribute) in names.enumerated() {
                    let expected = record.values[attribute].map { $0.sqliteValue } ?? .null
                    #expect(statement.value(Int32(index)) == expected, "seed \(seed), \(name): \(record.id) \(attribute)")
                }
                var folder = SQLiteValue.null
                if case let .toOne(target)? = record.relationships["folder"], let target { folder = .text(target.description) }
                #expect(statement.value(Int32(names.count)) == folder, "seed \(seed), \(name): \(record.id) folder")
                for (offset, slot) in table.slots.enumerated() {
                    let written = slot.attributes.contains { record.values[$0] != nil } || slot.relationship.map { record.relationships[$0] != nil } == true
                    #expect(statement.isNull(Int32(names.count + 1 + offset)) == !written, "seed \(seed), \(name): \(record.id) writer of \(slot.name)")
                }
                statement.reset()
            }
        }
    }
}
