import Testing
@testable import Ubiquity
@testable import UbiquityCore
import UbiquityTestSupport

/// `ObjectContext.relate`: the relationship edit `ubiq relate`/`unrelate` make, named by global
/// IDs, with one typed error per refusal and nothing saved when refused.
@Suite("Relating objects by their global IDs")
struct RelateByIDTests {
    let note = try! GlobalID(entity: "Note", key: "groceries")
    let home = try! GlobalID(entity: "Folder", key: "home")
    let work = try! GlobalID(entity: "Folder", key: "work")
    let urgent = try! GlobalID(entity: "Tag", key: "urgent")

    /// A peer holding the note, two folders and a tag.
    func peer(_ cloud: TestCloud) throws -> UbiquityPeer {
        let peer = try cloud.peer("a")
        let context = peer.newContext()
        _ = try context.insert("Note", key: note.key)
        _ = try context.insert("Folder", key: home.key)
        _ = try context.insert("Folder", key: work.key)
        _ = try context.insert("Tag", key: urgent.key)
        try context.save()
        return peer
    }

    @Test("A to-one is set and cleared, a to-many gains and loses a member, each saved")
    func editsAreSaved() throws {
        let cloud = try TestCloud()
        let peer = try peer(cloud)
        defer { peer.close() }
        try peer.newContext().relate(note, "folder", home)
        try peer.newContext().relate(note, "tags", urgent)
        #expect((try peer.store.snapshot(of: note)?.toOne["folder"] ?? nil) == home)
        #expect(try peer.store.targets(of: "tags", of: note) == [urgent])
        try peer.newContext().relate(note, "folder", home, present: false)
        try peer.newContext().relate(note, "tags", urgent, present: false)
        #expect((try peer.store.snapshot(of: note)?.toOne["folder"] ?? nil) == nil)
        #expect(try peer.store.targets(of: "tags", of: note).isEmpty)
    }

    @Test("Each refusal is its own error and leaves the store as it was")
    func refusalsAreTypedAndSaveNothing() throws {
        let cloud = try TestCloud()
        let peer = try peer(cloud)
        defer { peer.close() }
        try peer.newContext().relate(note, "folder", home)
        let before = try peer.store.dump().text()
        #expect(throws: RelationshipEditError.wrongDestination(entity: "Note", relationship: "folder", destination: "Folder", target: urgent)) {
            try peer.newContext().relate(note, "folder", urgent)
        }
        #expect(throws: RelationshipEditError.notOrderedToMany(entity: "Note", relationship: "tags")) {
            try peer.newContext().relate(note, "tags", urgent, at: 0)
        }
        #expect(throws: RelationshipEditError.doesNotPoint(source: note, relationship: "folder", target: work)) {
            try peer.newContext().relate(note, "folder", work, present: false)
        }
        #expect(throws: ModelError.unknownProperty(entity: "Note", property: "owner")) {
            try peer.newContext().relate(note, "owner", home)
        }
        #expect(try peer.store.dump().text() == before, "a refused edit saved nothing")
        #expect(RelationshipEditError.doesNotPoint(source: note, relationship: "folder", target: work).description
                == "Note/groceries.folder does not point to Folder/work")
    }
}
