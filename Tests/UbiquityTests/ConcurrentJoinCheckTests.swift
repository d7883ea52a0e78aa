import Foundation
import Testing
@testable import Ubiquity
@testable import UbiquityCore
import UbiquityTestSupport

/// A store that holds nothing joins a baseline by copying its rows while a second thread checks
/// the same file through a connection of its own (`ConcurrentStateFileCheck`). That check must
/// find exactly what the store's own check finds, and a file it refuses must leave the store as
/// it was.
@Suite("A newcomer's join checks the file beside the copy")
struct ConcurrentJoinCheckTests {
    /// A state file of `notes` notes, `deleted` of them deleted after they were saved, with one
    /// row changed by `change` (SQL `SET` text) if given, in rollback-journal mode as a
    /// baseline's file is.
    static func stateFile(_ cloud: TestCloud, notes: Int, deleted: Int, change: String? = nil) throws -> (path: String, knowledge: KnowledgeVector) {
        let writer = try cloud.peer("writer", policy: nil)
        let context = writer.newContext()
        var objects: [ManagedObject] = []
        for key in 0..<notes {
            let note = try context.insert("Note", key: "n\(key)")
            note["title"] = .string("note \(key)")
            note["zip"] = .integer(Int64(key))
            objects.append(note)
        }
        try context.save()
        for note in objects.prefix(deleted) { context.delete(note) }
        try context.save()
        let path = cloud.root + "/state.sqlite"
        let knowledge = try writer.store.writeStateFile(to: path)
        if let change {
            let database = try SQLiteDatabase(path: path)
            try database.execute("UPDATE E_Note SET \(change) WHERE gid = (SELECT min(gid) FROM E_Note)")
            try database.execute("PRAGMA journal_mode=DELETE")
        }
        return (path, knowledge)
    }

    /// What the check beside the copy says of the file.
    static func checkAlongside(_ store: PersistentStore, path: String, knowledge: KnowledgeVector, batchSize: Int = 16_384) -> Result<Set<GlobalID>, any Error> {
        let check = ConcurrentStateFileCheck(path: path, like: store.stateFileValidator(reading: store.database, schema: "baseline", knowledge: knowledge),
                                             batchSize: batchSize)
        var live = Set<GlobalID>()
        return Result { try check.collectLive(into: &live); return live }
    }

    /// What the store's own check says of the file, attached under `baseline` as a join attaches it.
    static func storesOwnCheck(_ store: PersistentStore, path: String, knowledge: KnowledgeVector) -> Result<[GlobalID], any Error> {
        Result {
            let database = try SQLiteDatabase(path: store.path)
            try database.execute("ATTACH DATABASE \(SQLiteDatabase.quoteLiteral(path)) AS baseline")
            return try store.stateFileValidator(reading: database, schema: "baseline", knowledge: knowledge).validate().live
        }
    }

    @Test("the check beside the copy finds the objects alive that the store's own check finds, in batches of any size",
          arguments: [1, 3, 16_384])
    func sameLiveObjects(batchSize: Int) throws {
        let cloud = try TestCloud(model: RandomNotesWorkload.model, contentName: "Random")
        let (path, knowledge) = try Self.stateFile(cloud, notes: 40, deleted: 7)
        let joiner = try cloud.peer("joiner", policy: nil)
        let own = try Self.storesOwnCheck(joiner.store, path: path, knowledge: knowledge).get()
        let alongside = try Self.checkAlongside(joiner.store, path: path, knowledge: knowledge, batchSize: batchSize).get()
        #expect(own.count == 33)
        #expect(alongside == Set(own))

        let changes = try joiner.store.joinStateFile(at: path, knowledge: knowledge)
        // The copy went into the file with a rollback journal: the WAL holds none of its pages.
        let wal = (try? FileManager.default.attributesOfItem(atPath: joiner.store.path + "-wal")[.size] as? NSNumber)?.intValue ?? 0
        #expect(wal == 0)
        #expect(!FileManager.default.fileExists(atPath: joiner.store.path + "-journal"))
        #expect(changes == ObjectChanges(inserted: Set(own)))
        #expect(try joiner.store.count(FetchRequest(entity: "Note")) == 33)
        #expect(try joiner.store.locked { try BulkWriteSettingsTests.pragma("journal_mode", of: joiner.store.database) } == "wal")
        #expect(joiner.store.knowledge == knowledge)
    }

    @Test("a bad row fails the check beside the copy with the reason the store's own check gives, and nothing is joined",
          arguments: BaselineJoinTests.badRows.indices.filter { BaselineJoinTests.badRows[$0].reason != nil })
    func badRowSameReason(index: Int) throws {
        let (change, reason) = BaselineJoinTests.badRows[index]
        let cloud = try TestCloud(model: RandomNotesWorkload.model, contentName: "Random")
        let (path, knowledge) = try Self.stateFile(cloud, notes: 5, deleted: 0, change: change)
        let joiner = try cloud.peer("joiner", policy: nil)
        let own = Self.storesOwnCheck(joiner.store, path: path, knowledge: knowledge)
        let alongside = Self.checkAlongside(joiner.store, path: path, knowledge: knowledge)
        guard case let .failure(ownError) = own, case let .failure(alongsideError) = alongside else {
            Issue.record("\(change): both checks refuse the file (own: \(own), alongside: \(alongside))")
            return
        }
        let refusal = try #require(ownError as? StateFileError)
        #expect("\(refusal)".hasSuffix(reason!))
        #expect(alongsideError as? StateFileError == refusal)

        #expect(throws: refusal) { _ = try joiner.store.joinStateFile(at: path, knowledge: knowledge) }
        #expect(try joiner.store.count(FetchRequest(entity: "Note")) == 0, "\(change): no row of the file was kept")
        #expect(joiner.store.knowledge.entries.isEmpty)
    }

    @Test("a file the second connection cannot open is not called invalid: the join checks it on its own connection")
    func unopenableFileIsNotInvalid() throws {
        let cloud = try TestCloud(model: RandomNotesWorkload.model, contentName: "Random")
        let joiner = try cloud.peer("joiner", policy: nil)
        let missing = cloud.root + "/no-such-folder/state.sqlite"
        let result = Self.checkAlongside(joiner.store, path: missing, knowledge: KnowledgeVector())
        guard case let .failure(error) = result else {
            Issue.record("a missing file cannot pass the check")
            return
        }
        #expect(!(error is StateFileError), "\(error)")
    }
}
