import Foundation
import Testing
@testable import Ubiquity
import UbiquityTestSupport

/// Versions of the Notes model as an app's releases would change it.
enum NotesVersions {
    static func notes(name: String, noteAttributes: [AttributeDescription], extraEntities: [EntityDescription] = []) throws -> ObjectModel {
        try ObjectModel(name: name, entities: [
            EntityDescription("Folder",
                attributes: [AttributeDescription("name", .string, optional: false, default: .string(""))],
                relationships: [RelationshipDescription("notes", destination: "Note", inverse: "folder", toMany: true, deleteRule: .cascade)]),
            EntityDescription("Note",
                attributes: noteAttributes,
                relationships: [
                    RelationshipDescription("folder", destination: "Folder", inverse: "notes"),
                    RelationshipDescription("tags", destination: "Tag", inverse: "notes", toMany: true),
                ]),
            EntityDescription("Tag",
                attributes: [AttributeDescription("name", .string, optional: false, default: .string(""))],
                relationships: [RelationshipDescription("notes", destination: "Note", inverse: "tags", toMany: true)]),
        ] + extraEntities)
    }

    static let baseAttributes = [
        AttributeDescription("title", .string, optional: false, default: .string("")),
        AttributeDescription("body", .string),
        AttributeDescription("created", .date),
        AttributeDescription("pinned", .boolean, optional: false, default: .boolean(false)),
    ]

    /// Version 2: an optional attribute added.
    static let withColour = try! notes(name: "Notes 2", noteAttributes: baseAttributes + [AttributeDescription("colour", .string)])

    /// Version 2 of the scenario: `body` renamed to `text` (renaming identifier) and a new entity.
    static let renamedBody = try! notes(name: "Notes 2", noteAttributes: [
        AttributeDescription("title", .string, optional: false, default: .string("")),
        AttributeDescription("text", .string, renamingIdentifier: "body"),
        AttributeDescription("created", .date),
        AttributeDescription("pinned", .boolean, optional: false, default: .boolean(false)),
    ], extraEntities: [EntityDescription("Label", attributes: [AttributeDescription("name", .string)])])

    /// `Tag` renamed to `Label` (renaming identifier), and a note's folder becomes to-many (many-to-many).
    static let labelsAndFolders = try! ObjectModel(name: "Notes L", entities: [
        EntityDescription("Folder",
            attributes: [AttributeDescription("name", .string, optional: false, default: .string(""))],
            relationships: [RelationshipDescription("notes", destination: "Note", inverse: "folders", toMany: true)]),
        EntityDescription("Note",
            attributes: baseAttributes,
            relationships: [
                RelationshipDescription("folders", destination: "Folder", inverse: "notes", toMany: true, renamingIdentifier: "folder"),
                RelationshipDescription("tags", destination: "Label", inverse: "notes", toMany: true),
            ]),
        EntityDescription("Label",
            attributes: [AttributeDescription("name", .string, optional: false, default: .string(""))],
            relationships: [RelationshipDescription("notes", destination: "Note", inverse: "tags", toMany: true)],
            renamingIdentifier: "Tag"),
    ])

    /// Not inferable: `pinned` becomes an integer.
    static let pinnedAsNumber = try! notes(name: "Notes X", noteAttributes: [
        AttributeDescription("title", .string, optional: false, default: .string("")),
        AttributeDescription("body", .string),
        AttributeDescription("created", .date),
        AttributeDescription("pinned", .integer16, optional: false, default: .integer(0)),
    ])
}

@Suite("Lightweight migration of a store to a new model version, with peers on both versions")
struct ModelMigrationTests {
    func configuration(_ cloud: TestCloud, _ name: String, model: ObjectModel) -> PeerConfiguration {
        var configuration = cloud.configuration(name)
        configuration.model = model
        return configuration
    }

    func open(_ cloud: TestCloud, _ name: String, model: ObjectModel) throws -> UbiquityPeer {
        try UbiquityPeer(configuration: configuration(cloud, name, model: model))
    }

    /// Live objects with their values, by global ID, for comparing peers on different versions.
    func titles(_ peer: UbiquityPeer) throws -> [String: String] {
        var result: [String: String] = [:]
        for object in try peer.store.fetch(FetchRequest(entity: "Note")) {
            if case let .string(title)?? = object.values["title"] { result[object.id.description] = title }
        }
        return result
    }

    @Test func addingAnOptionalAttributeMigratesEveryObjectAndSyncGoesOn() throws {
        let cloud = try TestCloud()
        var a = try cloud.peer("a"), b = try cloud.peer("b"), c = try cloud.peer("c")
        for (peer, count) in [(a, 3), (b, 2), (c, 2)] {
            let context = peer.newContext()
            for index in 0..<count { try context.insert("Note")["title"] = .string("\(peer.peerID.prefix(1))-\(index)") }
            try context.save()
        }
        for peer in [a, b, c, a] { _ = try peer.sync() }
        // b saves on the old version; the save has not left the device when a upgrades.
        let bContext = b.newContext()
        let late = try bContext.insert("Note")
        late["title"] = .string("b-late")
        try bContext.save()
        #expect(try titles(a).count == 7)

        a.close()
        a = try open(cloud, "a", model: NotesVersions.withColour)
        let migration = try #require(a.migration)
        #expect(migration.objectsBefore == 8 && migration.objectsAfter == 8, "b's save was imported by the last sync on version 1")
        #expect(try titles(a).count == 8)
        _ = try a.sync()
        #expect(try a.store.migrationKnowledgeOwed() == nil, "the migrated state is in a baseline of the new version")

        // a edits on version 2; b and c keep syncing among themselves on version 1.
        let aContext = a.newContext()
        let coloured = try aContext.insert("Note")
        coloured["title"] = .string("a-v2")
        coloured["colour"] = .string("red")
        try aContext.save()
        let cContext = c.newContext()
        try cContext.insert("Note")["title"] = .string("c-v1")
        try cContext.save()
        for peer in [b, c, b] { _ = try peer.sync() }
        #expect(try titles(b).count == 9 && titles(c).count == 9)
        #expect(try titles(b)[coloured.id.description] == nil, "an old peer never applies a newer version's log")

        // c upgrades, then b: every save of either version is everywhere.
        c.close()
        c = try open(cloud, "c", model: NotesVersions.withColour)
        _ = try c.sync()
        // b's last save on version 1 cannot leave the device (its version-1 folder is blocked).
        let oldFolder = try #require(b.location).logDirectory(of: b.peerID)
        try FileManager.default.moveItem(atPath: oldFolder, toPath: cloud.root + "/away")
        try AtomicFile.write([0], to: oldFolder)
        let unsentContext = b.newContext()
        let unsent = try unsentContext.insert("Note")
        unsent["title"] = .string("b-unsent")
        try unsentContext.save()
        #expect(try b.store.pendingOutbox().count == 1)
        b.close()
        b = try open(cloud, "b", model: NotesVersions.withColour)
        #expect(b.migration?.previousVersionLogs == 1)
        for peer in [b, c, a, b, c, a] { _ = try peer.sync() }
        let expected = try titles(a)
        #expect(expected.count == 11)
        #expect(Set(expected.values).isSuperset(of: ["b-late", "c-v1", "a-v2", "b-unsent"]))
        // Back online, the old version's folder gets the save too.
        try FileManager.default.removeItem(atPath: oldFolder)
        try FileManager.default.moveItem(atPath: cloud.root + "/away", toPath: oldFolder)
        let filesBefore = try FileManager.default.contentsOfDirectory(atPath: oldFolder).count
        #expect(try b.sync().exported == 1)
        #expect(try b.store.previousVersionOutbox().isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: oldFolder).count == filesBefore + 1)
        #expect(try b.dumpText() == a.dumpText())
        #expect(try c.dumpText() == a.dumpText())
        #expect(try b.store.snapshot(of: coloured.id)?.values["colour"] == .string("red"))
        for peer in [a, b, c] { peer.close() }
    }

    @Test func aChangeThatCannotBeInferredIsRefusedAndTheStoreStillOpensWithItsModel() throws {
        let cloud = try TestCloud()
        var a = try cloud.peer("a")
        let context = a.newContext()
        let note = try context.insert("Note")
        note["title"] = .string("kept")
        note["pinned"] = .boolean(true)
        try context.save()
        let before = try a.dumpText()
        a.close()
        let bytes = try Data(contentsOf: URL(fileURLWithPath: a.store.path))
        #expect {
            try open(cloud, "a", model: NotesVersions.pinnedAsNumber)
        } throws: { error in
            guard case let PeerError.migrationRefused(refusal) = error else { return false }
            return refusal.refusals.map { "\($0.entity).\($0.property ?? "")" } == ["Note.pinned"]
                && refusal.description.contains("Note.pinned: type boolean → integer16")
                && refusal.description.contains("nothing was changed")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: a.store.path)) == bytes, "nothing was touched")
        a = try cloud.peer("a")
        #expect(a.migration == nil)
        #expect(try a.dumpText() == before)
        let later = a.newContext()
        try later.insert("Note")["title"] = .string("after")
        try later.save()
        a.close()
    }

    @Test func aRenamedAttributeAndANewEntityKeepEveryValueAndWriter() throws {
        let cloud = try TestCloud()
        var a = try cloud.peer("a")
        var b = try cloud.peer("b")
        let context = a.newContext()
        let folder = try context.insert("Folder")
        folder["name"] = .string("inbox")
        let note = try context.insert("Note")
        note["title"] = .string("t")
        note["body"] = .string("the body")
        try note.setTarget(folder.id, of: "folder")
        try context.save()
        _ = try b.sync()
        _ = try a.sync()   // its initial import is done: the coordinator opens the account store directly
        a.close()
        let coordinator = try UbiquitousStoreCoordinator(configuration: configuration(cloud, "a", model: NotesVersions.renamedBody), watchesDevice: false)
        let events = EventLog<CoordinatorEvent>()
        coordinator.observe { events.append($0) }
        try coordinator.addStore()
        let migrated = events.events.compactMap { if case let .storeMigrated(migration) = $0 { return migration } else { return nil } }
        #expect(migrated.count == 1 && migrated.first?.destinationHash == NotesVersions.renamedBody.hash)
        #expect(events.events.first.map { if case .storeMigrated = $0 { return true } else { return false } } == true, "posted before the did-change")
        a = try #require(coordinator.peer)
        let seen = try #require(try a.store.snapshot(of: note.id))
        #expect(seen.values["text"] == .string("the body"))
        #expect(seen.values["body"] == nil)
        #expect(seen.toOne["folder"] == .some(folder.id))
        let labels = a.newContext()
        try labels.insert("Label")["name"] = .string("new entity")
        try labels.save()
        _ = try coordinator.sync()
        // b migrates on its own: the same state, stamps and writers as a's, so they merge as equals.
        b.close()
        b = try open(cloud, "b", model: NotesVersions.renamedBody)
        _ = try b.sync()
        _ = try coordinator.sync()
        #expect(try b.mergeStateText() == a.mergeStateText())
        #expect(try b.dumpText().contains("new entity"))
        b.close()
        coordinator.close()
    }

    @Test func aRenamedEntityAndAToOneBecomingToManyKeepTheirObjectsAndTargets() throws {
        let cloud = try TestCloud()
        var a = try cloud.peer("a")
        var b = try cloud.peer("b")
        let context = a.newContext()
        let folder = try context.insert("Folder", key: "inbox")
        folder["name"] = .string("inbox")
        let tag = try context.insert("Tag", key: "red")
        tag["name"] = .string("red")
        let note = try context.insert("Note", key: "n1")
        note["title"] = .string("n1")
        try note.setTarget(folder.id, of: "folder")
        try note.add(tag.id, to: "tags")
        try context.save()
        _ = try b.sync()
        a.close()
        a = try open(cloud, "a", model: NotesVersions.labelsAndFolders)
        let label = try GlobalID(entity: "Label", key: "red")
        #expect(try !a.dumpText().contains("Tag/"), "the renamed entity's objects, and references to them, have new global IDs")
        #expect(try a.store.snapshot(of: label)?.values["name"] == .string("red"))
        let fetched = try a.store.fetch(FetchRequest(entity: "Note"))
        #expect(fetched.count == 1)
        #expect(try a.store.targets(of: "folders", of: note.id) == [folder.id])
        #expect(try a.store.targets(of: "tags", of: note.id) == [label])
        #expect(try a.store.targets(of: "notes", of: folder.id) == [note.id])
        _ = try a.sync()
        // b migrates on its own and reaches the same state; a later save on either side travels.
        b.close()
        b = try open(cloud, "b", model: NotesVersions.labelsAndFolders)
        _ = try b.sync()
        #expect(try b.mergeStateText() == a.mergeStateText())
        let more = b.newContext()
        let second = try more.insert("Folder", key: "work")
        second["name"] = .string("work")
        try more.save()
        let shared = try #require(try more.object(note.id))
        try shared.add(second.id, to: "folders")
        try more.save()
        _ = try a.sync()
        #expect(Set(try a.store.targets(of: "folders", of: note.id)) == [folder.id, second.id])
        #expect(try b.dumpText() == a.dumpText())
        a.close()
        b.close()
    }

    @Test func aStoreThatDoesNotRecordItsModelIsMigratedFromTheAppsEarlierVersion() throws {
        let cloud = try TestCloud()
        var a = try cloud.peer("a", policy: nil)
        let context = a.newContext()
        try context.insert("Note")["title"] = .string("old")
        try context.save()
        let path = a.store.path
        a.close()
        // As a store made by an earlier build: no model recorded.
        let database = try SQLiteDatabase(path: path)
        try database.execute("DELETE FROM Z_META WHERE key = 'model'")
        var configuration = configuration(cloud, "a", model: NotesVersions.withColour)
        configuration.baselinePolicy = nil
        #expect {
            try UbiquityPeer(configuration: configuration)
        } throws: { error in
            "\(error)".contains("does not record that model") && (error as? PeerError)?.advice.remedies == [.migrateStoreFromModel]
        }
        configuration.previousModels = [.notes]
        a = try UbiquityPeer(configuration: configuration)
        #expect(a.migration?.objectsAfter == 1)
        // Without a baseline policy the migrated state still goes into a baseline of version 2,
        // and a newcomer on version 2 starts from it.
        _ = try a.sync()
        #expect(try a.store.migrationKnowledgeOwed() == nil)
        var newcomer = configuration
        newcomer.device = cloud.devicePath("n")
        newcomer.previousModels = []
        _ = try Device.create(at: newcomer.device, userName: "n", identityToken: Device.defaultAccount)
        let n = try UbiquityPeer(configuration: newcomer)
        _ = try n.sync()
        #expect(try n.dumpText() == a.dumpText())
        n.close()
        a.close()
    }

    @Test func aFallbackLeftByThePreviousVersionIsHandedOverBeforeTheAccountStoreIsMigrated() throws {
        let cloud = try TestCloud()
        _ = try Device.create(at: cloud.devicePath("a"), userName: "a", identityToken: Device.defaultAccount)
        // The previous version's first launch: saves in the fallback, and the app is gone
        // before its initial import ran.
        let first = try UbiquitousStoreCoordinator(configuration: cloud.configuration("a"), background: BackgroundWork(.manual), watchesDevice: false)
        try first.addStore()
        #expect(first.storeKind == .fallback)
        let context = try first.newContext()
        let note = try context.insert("Note", key: "early")
        note["title"] = .string("saved in the fallback")
        note["body"] = .string("on version 1")
        try context.save()
        first.close()

        let events = EventLog<CoordinatorEvent>()
        let upgraded = try UbiquitousStoreCoordinator(configuration: configuration(cloud, "a", model: NotesVersions.renamedBody), watchesDevice: false)
        upgraded.observe { events.append($0) }
        try upgraded.addStore()
        #expect(upgraded.storeKind == .account)
        #expect(events.events.contains { if case .storeMigrated = $0 { return true } else { return false } })
        let peer = try #require(upgraded.peer)
        #expect(try peer.store.snapshot(of: note.id)?.values["text"] == .string("on version 1"))
        _ = try upgraded.sync()
        upgraded.close()
        _ = try Device.create(at: cloud.devicePath("b"), userName: "b", identityToken: Device.defaultAccount)
        let b = try open(cloud, "b", model: NotesVersions.renamedBody)
        _ = try b.sync()
        #expect(try b.store.snapshot(of: note.id)?.values["title"] == .string("saved in the fallback"))
        b.close()
    }
}
