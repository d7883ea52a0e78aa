import Foundation
import Testing
@testable import Ubiquity
@testable import UbiquityCore
@testable import UbiquitySync
import UbiquityTestSupport

/// Stores and baselines written with schema version 1 (each slot's stamp as text, with its
/// writer's number) are upgraded to version 2 (a reference to `Z_WRITERS`) and keep converging.
@Suite("Version-1 stores and baselines are upgraded")
struct SchemaUpgradeTests {
    /// Rewrites a version-2 store file the way version 1 laid it out.
    func downgradeToVersion1(_ path: String, model: ObjectModel) throws {
        let database = try SQLiteDatabase(path: path)
        try database.transaction {
            for entity in model.entities {
                let table = EntityTable(entity: entity, model: model)
                for slot in table.slots {
                    let (stamp, number, writer) = ("s_" + slot.name, "n_" + slot.name, "w_" + slot.name)
                    try database.execute("""
                        ALTER TABLE \(table.quotedName) ADD COLUMN \(stamp); ALTER TABLE \(table.quotedName) ADD COLUMN \(number);
                        UPDATE \(table.quotedName) SET \(stamp) = (SELECT stamp FROM Z_WRITERS WHERE id = \(writer)),
                            \(number) = (SELECT number FROM Z_WRITERS WHERE id = \(writer));
                        """)
                }
                for slot in table.slots { try database.execute("ALTER TABLE \(table.quotedName) DROP COLUMN w_\(slot.name)") }
                // Version 1 indexed every row's to-one, with or without a target.
                for name in table.toOneColumn.keys {
                    try database.execute("DROP INDEX \"I_\(entity.name)_\(name)\"; CREATE INDEX \"I_\(entity.name)_\(name)\" ON \(table.quotedName)(r_\(name))")
                }
                // Version 1's layout: per slot its stamp, then its number, after the to-ones.
                let columns = try database.statement("SELECT name FROM pragma_table_info('\(table.tableName)')").rows { $0.string(0) ?? "" }
                let expected = Array(table.columns.prefix { !$0.hasPrefix("w_") }) + table.slots.flatMap { ["s_" + $0.name, "n_" + $0.name] }
                #expect(columns == expected)
            }
            try database.execute("DROP TABLE Z_WRITERS; UPDATE Z_META SET value = '1' WHERE key = 'schemaVersion'")
        }
    }

    func save(_ peer: UbiquityPeer, _ edit: (ObjectContext) throws -> Void) throws {
        let context = peer.newContext()
        try edit(context)
        try context.save()
    }

    func fill(_ peer: UbiquityPeer) throws {
        try save(peer) { context in
            try context.insert("Folder", key: "home")["name"] = .string("Home")
            try context.insert("Tag", key: "food")["name"] = .string("food")
            for index in 0..<5 {
                let note = try context.insert("Note", key: "n\(index)")
                note["title"] = .string("note \(index)")
                note["pinned"] = .boolean(index % 2 == 0)
                try note.setTarget(try GlobalID(entity: "Folder", key: "home"), of: "folder")
                try note.add(try GlobalID(entity: "Tag", key: "food"), to: "tags")
            }
        }
        try save(peer) { context in
            try context.object(GlobalID(entity: "Note", key: "n1"))?["title"] = .string("note 1, retitled")
            context.delete(try #require(try context.object(GlobalID(entity: "Note", key: "n4"))))
        }
    }

    @Test func aVersion1StoreIsUpgradedWhenOpenedAndKeepsConverging() throws {
        let cloud = try TestCloud()
        let a = try cloud.peer("a", policy: nil)
        var b: UbiquityPeer? = try cloud.peer("b", policy: nil)
        try fill(a)
        _ = try b!.sync()
        let before = try b!.mergeStateText()
        let path = b!.store.path
        b!.close()
        b = nil
        try downgradeToVersion1(path, model: cloud.model)

        let upgraded = try cloud.peer("b", policy: nil)
        #expect(try upgraded.mergeStateText() == before, "the same stamps and writers, now by reference")
        #expect(try upgraded.store.meta(.schemaVersion) == String(StoreSchema.version))
        let index = try upgraded.store.locked { try upgraded.store.database.statement("SELECT sql FROM sqlite_master WHERE name = 'I_Note_folder'").rows { $0.string(0) ?? "" } }
        #expect(index.first?.hasSuffix("WHERE \"r_folder\" IS NOT NULL") == true, "the to-one index skips rows without a target: \(index)")
        // Concurrent edits of the same title: the merge reads the upgraded writers' stamps.
        try save(a) { try $0.object(GlobalID(entity: "Note", key: "n0"))?["title"] = .string("from a") }
        try save(upgraded) { try $0.object(GlobalID(entity: "Note", key: "n0"))?["title"] = .string("from b") }
        for _ in 0..<2 { for peer in [a, upgraded] { _ = try peer.sync() } }
        #expect(try a.mergeStateText() == upgraded.mergeStateText())
        #expect(try a.store.conflicts().count + upgraded.store.conflicts().count >= 1, "the concurrent overwrite is recorded")
    }

    @Test func aVersion1BaselineIsUpgradedWhenANewcomerAdoptsIt() throws {
        let cloud = try TestCloud()
        let a = try cloud.peer("a", policy: nil)
        try fill(a)
        guard case let .rolled(metadata, _) = try a.rollBaseline(force: true) else { Issue.record("no baseline"); return }
        // Rewrite the baseline's state file as version 1 wrote it.
        let location = try #require(a.location)
        let work = cloud.root + "/rewrite"
        let stateFile = try BaselineArchive.extractStore(location.baselinePath, metadata: metadata, into: work, sealing: .none, recentlyVerified: nil)
        try downgradeToVersion1(stateFile, model: cloud.model)
        var old = metadata
        old.storeChecksum = try BaselineArchive.sha256Hex(ofFile: stateFile)
        try BaselineArchive.write(metadata: old, model: cloud.model, storeFile: stateFile, to: location.baselinePath)
        try save(a) { try $0.insert("Note", key: "after")["title"] = .string("after the baseline") }

        let newcomer = try cloud.peer("newcomer", policy: nil)
        let summary = try newcomer.sync()
        #expect(summary.adoptedBaseline == a.peerID)
        #expect(try newcomer.mergeStateText() == a.mergeStateText())
        #expect(try newcomer.store.snapshot(of: GlobalID(entity: "Note", key: "n1"))?.values["title"] == .some(.string("note 1, retitled")))
    }
}
