import Foundation
import Testing
@testable import Ubiquity
import UbiquityTestSupport

@Suite("The library refuses mistakes where they are made")
struct LibrarySafetyTests {
    @Test func openOrCreateMakesTheDeviceOnceAndLoadsItAfter() throws {
        let cloud = try TestCloud()
        let path = cloud.devicePath("iphone")
        let made = try Device.openOrCreate(at: path, userName: "ann")
        let loaded = try Device.openOrCreate(at: path, userName: "ann")
        #expect(loaded.deviceUUID == made.deviceUUID && loaded.identityToken == Device.defaultAccount)
        // Another user's device is not adopted, and `create` stays strict.
        let refusal = #expect(throws: DeviceError.otherUser(device: path, owner: "ann", expected: "bob")) {
            try Device.openOrCreate(at: path, userName: "bob")
        }
        #expect(refusal?.description == "the device at \(path) belongs to user 'ann', not 'bob'")
        #expect(throws: DeviceError.alreadyExists(path)) { try Device.create(at: path, userName: "ann") }
        // The account it is on now is kept (openOrCreate does not sign it back in).
        _ = try Device.setAccount(nil, at: path)
        #expect(try Device.openOrCreate(at: path, userName: "ann").identityToken == nil)
    }

    @Test func aTargetThatNeverExistedIsRefusedAtSaveWithItsName() throws {
        let cloud = try TestCloud()
        let peer = try cloud.peer("ann")
        let context = peer.newContext()
        let note = try context.insert("Note", key: "n")
        let nowhere = try GlobalID(entity: "Folder", key: "nowhere")
        try note.setTarget(nowhere, of: "folder")
        #expect(throws: StoreError.missingTarget(object: note.id, relationship: "folder", target: nowhere)) { try context.save() }
        #expect("\(StoreError.missingTarget(object: note.id, relationship: "folder", target: nowhere))"
                == "Note/n.folder refers to Folder/nowhere, which does not exist: insert it first (or in the same save), or sync if another peer made it")
        #expect(try peer.store.count(FetchRequest(entity: "Note")) == 0, "nothing saved")
        // Inserted in the same save: fine.
        try context.insert("Folder", key: "nowhere").set("name", "Somewhere")
        try context.save()
        #expect(try peer.store.snapshot(of: note.id)?.toOne["folder"] == .some(nowhere))
    }

    @Test func aTargetDeletedMeanwhileReadsAsAbsentAsBefore() throws {
        let cloud = try TestCloud()
        let (ann, bob) = (try cloud.peer("ann"), try cloud.peer("bob"))
        let setup = ann.newContext()
        try setup.insert("Folder", key: "f").set("name", "F")
        try setup.insert("Note", key: "n").set("title", "N")
        try setup.save()
        _ = try bob.sync()
        // Ann relates the note to the folder while Bob deletes the folder; Ann imports first.
        let context = ann.newContext()
        let folder = try GlobalID(entity: "Folder", key: "f"), note = try GlobalID(entity: "Note", key: "n")
        try #require(try context.object(note)).setTarget(folder, of: "folder")
        let bobs = bob.newContext()
        bobs.delete(try #require(try bobs.object(folder)))
        try bobs.save()
        _ = try ann.sync()
        try context.save()
        #expect(try ann.store.snapshot(of: note)?.toOne["folder"] == .some(nil))
    }

    @Test func aMemberThatNeverExistedIsRefusedAtTheCall() throws {
        let cloud = try TestCloud()
        let context = try cloud.peer("ann").newContext()
        let note = try context.insert("Note", key: "n")
        let ghost = try GlobalID(entity: "Tag", key: "ghost")
        #expect(throws: StoreError.objectNotFound(ghost)) { try note.add(ghost, to: "tags") }
    }

    @Test func aWrongTypeThrowsAtTheCall() throws {
        let cloud = try TestCloud()
        let context = try cloud.peer("ann").newContext()
        let note = try context.insert("Note", key: "n")
        #expect(throws: ValidationError.wrongType(entity: "Note", property: "title", expected: .string, found: .integer)) {
            try note.set("title", 42)
        }
        #expect(throws: ValidationError.wrongType(entity: "Note", property: "pinned", expected: .boolean, found: .string)) {
            try note.set("pinned", "yes")
        }
        #expect(throws: ModelError.unknownProperty(entity: "Note", property: "titel")) { try note.set("titel", "x") }
        try note.set("title", "Groceries")
        try note.set("pinned", true)
        try note.set("created", Date(timeIntervalSince1970: 86_400))
        try note.set("body", nil)
        try context.save()
        let saved = try #require(try context.store.snapshot(of: note.id))
        #expect(saved.values["title"] == .some(.string("Groceries")) && saved.values["pinned"] == .some(.boolean(true)))
        #expect(saved.values["created"] == .some(.date(secondsSince1970: 86_400)) && saved.values["body"] == .some(nil))
    }

    @Test func anIntegerOutOfItsAttributesRangeThrowsAtTheCall() throws {
        let model = try ObjectModel(name: "Counts", entities: [
            EntityDescription("Counter", attributes: [AttributeDescription("small", .integer16)]),
        ])
        let cloud = try TestCloud(model: model, contentName: "Counts")
        let context = try cloud.peer("ann").newContext()
        let counter = try context.insert("Counter")
        #expect(throws: ValidationError.outOfRange(entity: "Counter", property: "small", type: .integer16, value: 40_000)) {
            try counter.set("small", 40_000)
        }
        try counter.set("small", Int16.max)
        try context.save()
    }

    @Test func theCoordinatorReadsCountsConflictsAndHistory() throws {
        let cloud = try TestCloud()
        let bob = try cloud.peer("bob")
        let coordinator = try cloud.coordinator("ann")
        defer { coordinator.close() }
        #expect(throws: PeerError.noStore) { try coordinator.count(of: "Note") }
        try coordinator.addStore()
        #expect(try coordinator.waitForBackgroundImport())
        let context = try coordinator.newContext()
        for (key, pinned) in [("a", true), ("b", false), ("c", true)] {
            let note = try context.insert("Note", key: key)
            try note.set("title", key)
            try note.set("pinned", pinned)
        }
        try context.save()
        #expect(try coordinator.count(of: "Note") == 3)
        #expect(try coordinator.count(of: "Note", where: "pinned == true") == 2)
        #expect(try coordinator.fetch(coordinator.request("Note", where: "pinned == false")).map(\.id.key) == ["b"])
        #expect(throws: PredicateParseError.self) { try coordinator.count(of: "Note", where: "pinned ==") }
        #expect(throws: ModelError.self) { try coordinator.count(of: "Nope") }

        // A concurrent edit: Bob's later title wins over Ann's, and Ann's history shows both.
        _ = try bob.sync()
        let annEdit = try coordinator.newContext()
        try #require(try annEdit.object(GlobalID(entity: "Note", key: "a"))).set("title", "ann's")
        try annEdit.save()
        let bobEdit = bob.newContext()
        try #require(try bobEdit.object(GlobalID(entity: "Note", key: "a"))).set("title", "bob's")
        try bobEdit.save()
        _ = try coordinator.sync()
        let conflicts = try coordinator.conflicts()
        #expect(conflicts.count == 1 && conflicts.first?.object.key == "a" && conflicts.first?.property == "title")
        let history = try coordinator.history()
        #expect(history.first?.isLocal == false && history.first?.peerID == bob.peerID)
        #expect(history.filter(\.isLocal).count == 2)
    }
}
