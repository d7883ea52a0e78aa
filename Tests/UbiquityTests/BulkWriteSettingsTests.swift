import Foundation
import Testing
import UbiquityBase
@testable import UbiquityCore

/// The settings a newcomer's join and initial import write under (`SQLiteDatabase+BulkWrites`,
/// `PersistentStore.withBulkImportCache`): a bulk write in rollback-journal mode must commit
/// or roll back as in WAL mode, leave the file in WAL mode with its usual durability, and give
/// way without waiting when another connection has the file open; the larger page cache must
/// end with the import, failed or not.
@Suite("Bulk writes: rollback journal for a join's copy, a large page cache for an initial import")
struct BulkWriteSettingsTests {
    final class Folder {
        let path = NSTemporaryDirectory() + "bulk-writes-\(UUID().uuidString)"
        init() throws { try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true) }
        deinit { try? FileManager.default.removeItem(atPath: path) }
    }

    struct Refused: Error {}

    static func pragma(_ name: String, of database: SQLiteDatabase) throws -> String {
        let statement = try database.statement("PRAGMA main.\(name)")
        defer { statement.reset() }
        guard try statement.step() else { return "" }
        return statement.string(0) ?? ""
    }

    static func count(_ database: SQLiteDatabase) throws -> Int {
        try database.statement("SELECT count(*) FROM t").rows { $0.int(0) }.first ?? -1
    }

    /// Each commit is seen by a second connection opened afterwards, so it reached the file.
    static func countFromAnotherConnection(_ path: String) throws -> Int {
        try count(SQLiteDatabase(path: path, readOnly: true))
    }

    @Test("the body writes in rollback-journal mode with full syncs; after it the file is in WAL mode with normal syncs")
    func aBulkWriteCommitsOnceAndReturnsToWAL() throws {
        let folder = try Folder()
        let path = folder.path + "/a.sqlite"
        let database = try SQLiteDatabase(path: path)
        try database.execute("CREATE TABLE t (x BLOB)")
        #expect(try Self.pragma("journal_mode", of: database) == "wal")
        var inside: (mode: String, synchronous: String) = ("", "")
        let rows = try database.inRollbackJournal {
            try database.transaction {
                for _ in 0..<500 { try database.run("INSERT INTO t VALUES (zeroblob(4000))") }
            }
            inside = (try Self.pragma("journal_mode", of: database), try Self.pragma("synchronous", of: database))
            return try Self.count(database)
        }
        #expect(rows == 500)
        #expect(inside.mode == "delete")
        #expect(inside.synchronous == "2", "FULL while the file has a rollback journal")
        #expect(try Self.pragma("journal_mode", of: database) == "wal")
        #expect(try Self.pragma("synchronous", of: database) == "1", "back to NORMAL")
        #expect(!FileManager.default.fileExists(atPath: path + "-journal"))
        #expect(try Self.countFromAnotherConnection(path) == 500)
        // And the file goes on in WAL mode: the next commit lands in the WAL.
        try database.run("INSERT INTO t VALUES (1)")
        #expect(FileManager.default.fileExists(atPath: path + "-wal"))
        #expect(try Self.countFromAnotherConnection(path) == 501)
    }

    @Test("a body that fails is rolled back and its error thrown; the file is back in WAL mode")
    func aFailedBulkWriteRollsBack() throws {
        let folder = try Folder()
        let path = folder.path + "/a.sqlite"
        let database = try SQLiteDatabase(path: path)
        try database.execute("CREATE TABLE t (x BLOB)")
        try database.run("INSERT INTO t VALUES (1)")
        #expect(throws: Refused.self) {
            try database.inRollbackJournal {
                try database.transaction {
                    for _ in 0..<300 { try database.run("INSERT INTO t VALUES (zeroblob(4000))") }
                    throw Refused()
                }
            }
        }
        #expect(try Self.count(database) == 1)
        #expect(try Self.pragma("journal_mode", of: database) == "wal")
        #expect(try Self.pragma("synchronous", of: database) == "1")
        #expect(try Self.countFromAnotherConnection(path) == 1)
    }

    @Test("with the file open on another connection the switch is refused at once and the body runs in WAL mode")
    func anotherConnectionKeepsWALWithoutWaiting() throws {
        let folder = try Folder()
        let path = folder.path + "/a.sqlite"
        let database = try SQLiteDatabase(path: path)
        try database.execute("CREATE TABLE t (x BLOB)")
        let other = try SQLiteDatabase(path: path)
        #expect(try Self.count(other) == 0, "the other connection has read the file")
        let started = Date()
        var mode = ""
        try database.inRollbackJournal {
            mode = try Self.pragma("journal_mode", of: database)
            try database.transaction { try database.run("INSERT INTO t VALUES (1)") }
        }
        #expect(mode == "wal")
        // The busy timeout is ten seconds: a switch that waited for the other connection would show.
        #expect(Date().timeIntervalSince(started) < SQLiteDatabase.busyTimeout.seconds / 2)
        #expect(try Self.count(other) == 1)
        #expect(try Self.pragma("synchronous", of: database) == "1")
    }

    @Test("inside a transaction the body joins it, in WAL mode")
    func insideATransactionNothingSwitches() throws {
        let folder = try Folder()
        let database = try SQLiteDatabase(path: folder.path + "/a.sqlite")
        try database.execute("CREATE TABLE t (x BLOB)")
        let mode = try database.transaction {
            try database.inRollbackJournal { try Self.pragma("journal_mode", of: database) }
        }
        #expect(mode == "wal")
    }

    @Test("a store's initial-import cache is the bulk one inside and the usual one after, when the import throws too")
    func theBulkCacheEndsWithTheImport() throws {
        let folder = try Folder()
        let store = try PersistentStore(path: folder.path + "/store.sqlite", model: .notes, peerID: "P", storeName: "Store", contentName: "Notes")
        let usual = "-\(SQLiteDatabase.pageCacheKiB)", bulk = "-\(PersistentStore.bulkImportCacheKiB)"
        #expect(try store.locked { try Self.pragma("cache_size", of: store.database) } == usual)
        let inside = try store.withBulkImportCache { try store.locked { try Self.pragma("cache_size", of: store.database) } }
        #expect(inside == bulk)
        #expect(try store.locked { try Self.pragma("cache_size", of: store.database) } == usual)
        #expect(throws: Refused.self) { try store.withBulkImportCache { throw Refused() } }
        #expect(try store.locked { try Self.pragma("cache_size", of: store.database) } == usual)
    }
}

private extension Int32 {
    /// Milliseconds as seconds.
    var seconds: TimeInterval { TimeInterval(self) / 1000 }
}
