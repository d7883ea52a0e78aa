import Foundation
import Testing
import UbiquityBase
@testable import UbiquityCore

/// A context checks each natural key it inserts inside a read transaction that stays open for
/// the next check (`PersistentStore.lockedLingeringRead`), instead of taking and dropping
/// SQLite's file locks for each. These hold it to what a read of its own per check gave: every
/// other use of the store ends the read first, so no check misses a save, no write waits in the
/// read's transaction, and a store opened read-only beside its owner never keeps a snapshot.
@Suite("Key checks in one lingering read")
struct LingeringReadTests {
    func withStore(_ body: (String, PersistentStore) throws -> Void) throws {
        let directory = NSTemporaryDirectory() + "lingering-read-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/a.sqlite"
        try body(path, try PersistentStore(path: path, model: .notes, peerID: "peer~a", storeName: "Store", contentName: "Notes"))
    }

    func insertNote(_ context: ObjectContext, _ key: String) throws {
        let note = try context.insert("Note", key: key)
        note["title"] = .string(key)
        note["pinned"] = .boolean(false)
    }

    @Test func checksInARowShareOneReadThatTheNextOtherUseEnds() throws {
        try withStore { _, store in
            let context = ObjectContext(store: store)
            try insertNote(context, "a")
            try insertNote(context, "b")
            #expect(store.database.isLingering)
            _ = store.knowledge
            #expect(!store.database.isLingering)
            // A key made by the context (a random UUID) asks the store nothing.
            _ = try context.insert("Note")
            #expect(!store.database.isLingering)
        }
    }

    @Test func aSaveBetweenTwoChecksIsSeenByTheSecond() throws {
        try withStore { _, store in
            let first = ObjectContext(store: store), second = ObjectContext(store: store)
            try insertNote(first, "a")
            #expect(store.database.isLingering)
            try insertNote(second, "x")
            try second.save()
            #expect(throws: StoreError.objectExists(try GlobalID(entity: "Note", key: "x"))) { try first.insert("Note", key: "x") }
            try insertNote(first, "y")
            try first.save()
            #expect(try store.isAlive(GlobalID(entity: "Note", key: "y")))
        }
    }

    @Test func aSaveAfterChecksIsCommittedAtOnce() throws {
        try withStore { path, store in
            let context = ObjectContext(store: store)
            try insertNote(context, "a")
            try insertNote(context, "b")
            try context.save()
            // Another connection sees the save as soon as it returns: it did not wait inside the read.
            let reader = try PersistentStore(path: path, model: .notes, peerID: "peer~a", storeName: "Store", contentName: "Notes", readOnly: true)
            #expect(try reader.isAlive(GlobalID(entity: "Note", key: "a")))
            #expect(try reader.isAlive(GlobalID(entity: "Note", key: "b")))
        }
    }

    @Test func aStoreOpenedReadOnlySeesItsOwnersLaterSaves() throws {
        try withStore { path, store in
            let reader = try PersistentStore(path: path, model: .notes, peerID: "peer~a", storeName: "Store", contentName: "Notes", readOnly: true)
            let id = try GlobalID(entity: "Note", key: "k")
            #expect(try !reader.isAlive(id))
            #expect(!reader.database.isLingering)
            let context = ObjectContext(store: store)
            try insertNote(context, "k")
            try context.save()
            #expect(try reader.isAlive(id))
        }
    }

    /// The connection's own rule, below the store: a statement run through `execute` or `run`
    /// ends the read first, so its write commits on its own.
    @Test func aWriteOnTheConnectionEndsTheRead() throws {
        let directory = NSTemporaryDirectory() + "lingering-read-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let database = try SQLiteDatabase(path: directory + "/d.sqlite")
        try database.execute("CREATE TABLE t (v INTEGER)")
        let other = try SQLiteDatabase(path: directory + "/d.sqlite", readOnly: true)
        func count() throws -> Int64 {
            let statement = try other.statement("SELECT count(*) FROM t")
            defer { other.resetActiveStatements() }
            return try statement.step() ? statement.int64(0) : -1
        }
        let select = try database.statement("SELECT count(*) FROM t")
        #expect(try database.lingeringRead { try select.step() ? select.int64(0) : -1 } == 0)
        #expect(database.isLingering)
        try database.execute("INSERT INTO t VALUES (1)")
        #expect(!database.isLingering)
        #expect(try count() == 1)
        _ = try database.lingeringRead { try select.rewind().step() }
        try database.run("INSERT INTO t VALUES (?)", [.integer(2)])
        #expect(!database.isLingering)
        #expect(try count() == 2)
    }
}
