import Foundation
import Testing
import UbiquityBase
@testable import UbiquityCore

/// A store's WAL is checkpointed beside its commits (`WALCheckpointer`), not inside the commit
/// that fills it: these hold that a commit no longer copies pages into the file, that the
/// checkpoint beside it does, that closing the store still leaves no WAL behind, and that the
/// size the baseline heuristics read does not depend on when a checkpoint ran.
@Suite("WAL checkpoints beside the commits")
struct WALCheckpointerTests {
    final class Folder {
        let path = NSTemporaryDirectory() + "wal-checkpoint-\(UUID().uuidString)"
        init() throws { try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true) }
        deinit { try? FileManager.default.removeItem(atPath: path) }
    }

    static func size(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path)[.size]) as? NSNumber)?.intValue ?? -1
    }

    /// A WAL database with a table, and a transaction that writes about `pages` pages.
    static func database(_ path: String) throws -> SQLiteDatabase {
        let database = try SQLiteDatabase(path: path)
        try database.execute("CREATE TABLE t (x BLOB)")
        return database
    }

    static func write(pages: Int, into database: SQLiteDatabase) throws {
        try database.transaction {
            for _ in 0..<pages { try database.run("INSERT INTO t VALUES (zeroblob(4000))") }
        }
    }

    @Test func aCommitPastTheThresholdLeavesTheCopyToTheCheckpointer() throws {
        let folder = try Folder()
        let path = folder.path + "/a.sqlite"
        let database = try Self.database(path)
        database.checkpointInBackground(threshold: .max)
        let before = Self.size(path)
        try Self.write(pages: 1_500, into: database)
        // SQLite's own automatic checkpoint would have copied 1,500 pages into the file here.
        #expect(Self.size(path) == before, "the commit copied pages into the file")
        #expect(Self.size(path + "-wal") > 1_500 * 4096)
    }

    @Test func theCheckpointerCopiesTheWALIntoTheFile() throws {
        let folder = try Folder()
        let path = folder.path + "/a.sqlite"
        let database = try Self.database(path)
        database.checkpointInBackground(threshold: 100)
        try Self.write(pages: 50, into: database)
        database.checkpointer?.waitUntilIdle()
        #expect(Self.size(path) < 50 * 4096, "below the threshold nothing is copied")
        try Self.write(pages: 100, into: database)
        database.checkpointer?.waitUntilIdle()
        #expect(Self.size(path) >= 150 * 4096, "the checkpoint copied every page into the file")
        // And the next writer starts the WAL over (it does not grow past what a commit writes).
        try Self.write(pages: 10, into: database)
        #expect(try database.statement("SELECT count(*) FROM t").rows { $0.int(0) }.first == 160)
    }

    /// A commit past sixteen times the threshold is a bulk write: it checkpoints itself, as
    /// SQLite's own hook does, and starts nothing beside it.
    @Test func aBulkCommitCheckpointsItself() throws {
        let folder = try Folder()
        let path = folder.path + "/a.sqlite"
        let database = try Self.database(path)
        database.checkpointInBackground(threshold: 10)
        try Self.write(pages: 200, into: database)
        #expect(Self.size(path) >= 200 * 4096, "the bulk commit's pages are in the file when it returns")
        database.checkpointer?.waitUntilIdle()
        #expect(database.checkpointer?.checkpointsBeside == 0)
        try Self.write(pages: 20, into: database)
        database.checkpointer?.waitUntilIdle()
        #expect(database.checkpointer?.checkpointsBeside == 1, "a commit under sixteen times the threshold is checkpointed beside")
    }

    @Test func aClosedStoreLeavesNoWAL() throws {
        let folder = try Folder()
        let path = folder.path + "/store.sqlite"
        var store: PersistentStore? = try PersistentStore(path: path, model: .notes, peerID: "peer~a", storeName: "Store", contentName: "Notes")
        do {
            let context = ObjectContext(store: store!)
            for index in 0..<3_000 {
                let note = try context.insert("Note")
                note["title"] = .string(String(repeating: "x", count: 200) + "\(index)")
                note["pinned"] = .boolean(false)
            }
            try context.save()
        }
        #expect(FileManager.default.fileExists(atPath: path + "-wal"))
        store = nil
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"), "the last connection's close checkpoints and deletes the WAL")
        let reopened = try PersistentStore(path: path, model: .notes, peerID: "peer~a", storeName: "Store", contentName: "Notes")
        #expect(try reopened.fetch(FetchRequest(entity: "Note")).count == 3_000)
    }

    /// What the baselines' byte rule compares with is the store's pages, wherever they are.
    @Test func theStoresSizeCountsPagesStillInTheWAL() throws {
        let folder = try Folder()
        let path = folder.path + "/store.sqlite"
        let store = try PersistentStore(path: path, model: .notes, peerID: "peer~a", storeName: "Store", contentName: "Notes")
        let empty = store.databaseSize
        let context = ObjectContext(store: store)
        for index in 0..<500 {
            let note = try context.insert("Note")
            note["title"] = .string(String(repeating: "y", count: 400) + "\(index)")
            note["pinned"] = .boolean(true)
        }
        try context.save()
        // 500 titles of 400 bytes: at least 200 kB more, none of it checkpointed yet.
        #expect(Self.size(path) < store.databaseSize)
        #expect(store.databaseSize - empty >= 200_000)
    }
}
