import Foundation
import Testing
import UbiquityBase
@testable import UbiquityCore

/// A local save's WAL is checkpointed beside its commit (`WALCheckpointer`), not inside it:
/// these hold that such a commit no longer copies pages into the file, that the checkpoint
/// beside it does, that every other commit (an import) and a bulk save still checkpoint
/// themselves, that closing the store still leaves no WAL behind, and that the size the
/// baseline heuristics read does not depend on when a checkpoint ran.
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

    @Test func aSavesCommitPastTheThresholdLeavesTheCopyToTheCheckpointer() throws {
        let folder = try Folder()
        let path = folder.path + "/a.sqlite"
        let database = try Self.database(path)
        database.checkpointInBackground(threshold: 100)
        let before = Self.size(path)
        try database.checkpointingBeside {
            try Self.write(pages: 50, into: database)
            database.waitForCheckpointBeside()
            #expect(database.checkpointer?.checkpointsBeside == 0, "below the threshold nothing is copied")
            try Self.write(pages: 100, into: database)
        }
        database.waitForCheckpointBeside()
        #expect(database.checkpointer?.checkpointsBeside == 1)
        #expect(Self.size(path) >= 150 * 4096, "the checkpoint beside copied every page into the file")
        #expect(before < 150 * 4096)
        // And the next writer starts the WAL over (it does not grow past what a commit writes).
        try Self.write(pages: 10, into: database)
        #expect(try database.statement("SELECT count(*) FROM t").rows { $0.int(0) }.first == 160)
    }

    /// Outside a save (an import, a join) a commit past the threshold checkpoints itself, as
    /// SQLite's own hook does, and so does a save past sixteen times the threshold.
    @Test(arguments: [false, true])
    func otherCommitsAndBulkSavesCheckpointThemselves(asSave: Bool) throws {
        let folder = try Folder()
        let path = folder.path + "/a.sqlite"
        let database = try Self.database(path)
        database.checkpointInBackground(threshold: 10)
        let pages = asSave ? 200 : 20
        if asSave {
            try database.checkpointingBeside { try Self.write(pages: pages, into: database) }
        } else {
            try Self.write(pages: pages, into: database)
        }
        #expect(Self.size(path) >= pages * 4096, "the commit's pages are in the file when it returns")
        database.waitForCheckpointBeside()
        #expect(database.checkpointer?.checkpointsBeside == 0)
    }

    /// Through the store: a save of a few thousand pages is checkpointed beside, the import of
    /// its log by another store inside its commit.
    @Test func aSaveIsCheckpointedBesideAndItsImportInline() throws {
        let folder = try Folder()
        let saver = try PersistentStore(path: folder.path + "/saver.sqlite", model: .notes, peerID: "peer~a", storeName: "Store", contentName: "Notes")
        let importer = try PersistentStore(path: folder.path + "/importer.sqlite", model: .notes, peerID: "peer~b", storeName: "Store", contentName: "Notes")
        let context = ObjectContext(store: saver)
        for index in 0..<10_000 {
            let note = try context.insert("Note")
            note["title"] = .string(String(repeating: "z", count: 400) + "\(index)")
            note["pinned"] = .boolean(false)
        }
        let log = try #require(try context.save())
        saver.waitForCheckpointBeside()
        #expect(saver.database.checkpointer?.checkpointsBeside == 1)
        #expect(try importer.applyImported([log]).applied.count == 1)
        #expect(Self.size(folder.path + "/importer.sqlite") > 4_000_000, "the import's commit (over a thousand pages) checkpointed itself")
        importer.waitForCheckpointBeside()
        #expect(importer.database.checkpointer?.checkpointsBeside == 0)
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
