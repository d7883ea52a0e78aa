import Foundation
import Testing
@testable import Ubiquity
@testable import UbiquityCore
import UbiquityTestSupport

/// One import of many logs reports each object once, by its net change over the batch
/// (the importer accumulates every log of a batch into one set of changes).
@Suite("An import reports each object's net change over its logs")
struct ImportChangesTests {
    func note(_ key: String) throws -> GlobalID { try GlobalID(entity: "Note", key: key) }

    /// Three logs: x and y inserted; x retitled, y deleted, z inserted; z retitled.
    func writeThreeLogs(_ writer: UbiquityPeer) throws {
        var context = writer.newContext()
        try context.insert("Note", key: "x")["title"] = .string("x")
        try context.insert("Note", key: "y")["title"] = .string("y")
        try context.save()
        context = writer.newContext()
        try context.object(note("x"))?["title"] = .string("x, retitled")
        context.delete(try #require(try context.object(note("y"))))
        try context.insert("Note", key: "z")["title"] = .string("z")
        try context.save()
        context = writer.newContext()
        try context.object(note("z"))?["title"] = .string("z, retitled")
        try context.save()
    }

    @Test func aBatchOfLogsReportsNetChanges() throws {
        let cloud = try TestCloud()
        let writer = try cloud.peer("writer", policy: nil), reader = try cloud.peer("reader", policy: nil)
        try writeThreeLogs(writer)
        let events = EventLog<PeerEvent>()
        reader.observe { events.append($0) }
        let report = try reader.importAvailable()
        #expect(report.applied.count == 3)
        #expect(report.changes == ObjectChanges(inserted: [try note("x"), try note("z")]), "y came and went within the batch")
        #expect(events.events == [.didImport(report.changes)])
        #expect(try reader.store.snapshot(of: note("x"))?.values["title"] == .some(.string("x, retitled")))
        #expect(try reader.store.snapshot(of: note("z"))?.values["title"] == .some(.string("z, retitled")))
        #expect(try reader.store.isDeleted(note("y")))
        #expect(try reader.mergeStateText() == writer.mergeStateText())
    }

    @Test func batchesOfOneLogAddUpToTheSameChanges() throws {
        let cloud = try TestCloud()
        let writer = try cloud.peer("writer", policy: nil), reader = try cloud.peer("reader", policy: nil)
        try writeThreeLogs(writer)
        let events = EventLog<PeerEvent>()
        reader.observe { events.append($0) }
        let report = try reader.importAvailable(batchSize: 1)
        #expect(events.events.count == 3, "one event per committed batch")
        #expect(report.changes == ObjectChanges(inserted: [try note("x"), try note("z")]))
        #expect(try reader.mergeStateText() == writer.mergeStateText())
    }

    @Test func objectsKnownBeforeTheBatchAreUpdatedOrDeleted() throws {
        let cloud = try TestCloud()
        let writer = try cloud.peer("writer", policy: nil), reader = try cloud.peer("reader", policy: nil)
        let context = writer.newContext()
        try context.insert("Note", key: "x")["title"] = .string("x")
        try context.insert("Note", key: "y")["title"] = .string("y")
        try context.save()
        _ = try reader.importAvailable()
        let later = writer.newContext()
        try later.object(note("x"))?["title"] = .string("x, retitled")
        later.delete(try #require(try later.object(note("y"))))
        try later.save()
        let again = writer.newContext()
        try again.insert("Note", key: "y")["title"] = .string("y again")
        try again.save()
        let report = try reader.importAvailable()
        #expect(report.changes == ObjectChanges(updated: [try note("x"), try note("y")]), "y was deleted and inserted again: an update")
        #expect(try reader.mergeStateText() == writer.mergeStateText())
    }

    /// A log the store refuses after its records were applied takes its changes back out of
    /// the batch's: y, which it deleted, is inserted again, and z, which it inserted, is gone.
    @Test func aRefusedLogLeavesNoChangeInTheBatch() throws {
        let cloud = try TestCloud()
        let writer = try cloud.peer("writer", policy: nil), reader = try cloud.peer("reader", policy: nil)
        try writeThreeLogs(writer)
        try reader.store.database.execute("""
            CREATE TEMP TRIGGER refuse BEFORE INSERT ON Z_TRANSACTIONS WHEN NEW.peer = '\(writer.peerID)' AND NEW.number = 2
            BEGIN SELECT RAISE(ABORT, 'refused by the test'); END
            """)
        let report = try reader.importAvailable()
        #expect(report.applied.map(\.number) == [1], "\(report.applied)")
        #expect(report.changes == ObjectChanges(inserted: [try note("x"), try note("y")]))
        #expect(try reader.store.snapshot(of: note("y"))?.values["title"] == .some(.string("y")))
        #expect(try reader.store.snapshot(of: note("z")) == nil)
    }

    @Test func aNewcomerStartingFromABaselineReportsItsLiveObjectsAsInserted() throws {
        let cloud = try TestCloud()
        let writer = try cloud.peer("writer", policy: nil)
        try writeThreeLogs(writer)
        _ = try writer.rollBaseline(force: true)
        let newcomer = try cloud.peer("newcomer", policy: nil)
        let events = EventLog<PeerEvent>()
        newcomer.observe { events.append($0) }
        let summary = try newcomer.sync()
        #expect(summary.adoptedBaseline == writer.peerID)
        #expect(events.events == [.didImport(ObjectChanges(inserted: [try note("x"), try note("z")]))], "y is only a tombstone")
        #expect(try newcomer.mergeStateText() == writer.mergeStateText())
    }
}
