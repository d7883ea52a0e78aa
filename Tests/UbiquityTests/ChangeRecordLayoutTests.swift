import Foundation
import Testing
@testable import UbiquityCore

/// A record the binary reader lays out by attribute index reads, compares and changes as the
/// same record held by name: `values` is one view of both.
@Suite("A laid-out record is the record held by name")
struct ChangeRecordLayoutTests {
    static let model = ObjectModel.notes

    func log(_ inserted: [ChangeRecord], _ updated: [ChangeRecord]) -> TransactionLog {
        TransactionLog(peerID: "p~1", transactionNumber: 1, knowledge: KnowledgeVector(["p~1": 1]),
                       stamp: Stamp(wallMilliseconds: 1_700_000_000_000, counter: 0, peerID: "p~1"), transactionDate: 1_700_000_000,
                       modelVersionHash: Self.model.hash, storeName: "Store", contentName: "Notes", inserted: inserted, updated: updated, deleted: [])
    }

    @Test func readBackRecordsAreLaidOutAndEqualByName() throws {
        let note = try GlobalID(entity: "Note", key: "n1")
        let inserted = ChangeRecord(id: note, values: ["title": .string("t"), "body": nil, "created": .date(secondsSince1970: 2.5), "pinned": .boolean(true)],
                                    relationships: ["folder": .toOne(nil)])
        let updated = ChangeRecord(id: note, values: ["pinned": .boolean(false)])
        let original = log([inserted], [updated])
        let read = try TransactionLog(decoding: original.encoded(format: .binary), model: Self.model)
        #expect(read == original)
        for record in read.inserted + read.updated {
            guard case let .laidOut(layout, values) = record.valueStorage else {
                Issue.record("\(record.id) was not laid out")
                continue
            }
            #expect(layout.names == ["title", "body", "created", "pinned"])
            #expect(values.count == 4)
        }
        // Absent (`nil`) and not set stay apart.
        #expect(read.inserted[0].values.keys.sorted() == ["body", "created", "pinned", "title"])
        #expect(read.inserted[0].values["body"] == .some(nil))
        #expect(read.updated[0].values == ["pinned": .boolean(false)])
    }

    @Test func changingALaidOutRecordsValuesKeepsTheOthers() throws {
        let note = try GlobalID(entity: "Note", key: "n2")
        let original = log([ChangeRecord(id: note, values: ["title": .string("a"), "pinned": .boolean(false)])], [])
        var record = try TransactionLog(decoding: original.encoded(format: .binary), model: Self.model).inserted[0]
        record.values["title"] = .string("b")
        record.values["created"] = .some(nil)
        #expect(record.values == ["title": .string("b"), "pinned": .boolean(false), "created": nil])
        #expect(record == ChangeRecord(id: note, values: ["title": .string("b"), "pinned": .boolean(false), "created": nil]))
        #expect(record != ChangeRecord(id: note, values: ["title": .string("b"), "pinned": .boolean(false)]))
    }
}
