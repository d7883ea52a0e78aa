import Foundation
import Testing
@testable import Ubiquity
@testable import UbiquityCore
import UbiquityTestSupport

/// Entity inheritance as Core Data has it: sub-entities inherit their parent's properties, a
/// fetch of the parent returns its sub-entities' objects, relationships to the parent take
/// them, an abstract entity has no objects of its own.
@Suite("Entity inheritance in stores, fetches, relationships and sync")
struct InheritanceTests {
    static let model = try! ObjectModel(name: "Library", entities: [
        EntityDescription("Item", attributes: [
            AttributeDescription("title", .string, optional: false, default: .string("")),
            AttributeDescription("year", .integer16),
        ], relationships: [
            RelationshipDescription("shelf", destination: "Shelf", inverse: "items"),
            RelationshipDescription("tags", destination: "Tag", inverse: "items", toMany: true),
        ], abstract: true),
        EntityDescription("Book", attributes: [AttributeDescription("isbn", .string)], parent: "Item"),
        EntityDescription("Magazine", attributes: [AttributeDescription("issue", .integer32)], parent: "Item"),
        EntityDescription("Shelf", attributes: [AttributeDescription("name", .string)], relationships: [
            RelationshipDescription("items", destination: "Item", inverse: "shelf", toMany: true, deleteRule: .cascade),
            RelationshipDescription("favourite", destination: "Item"),
        ]),
        EntityDescription("Tag", relationships: [RelationshipDescription("items", destination: "Item", inverse: "tags", toMany: true)]),
    ])

    func fill(_ peer: UbiquityPeer) throws {
        let context = peer.newContext()
        let shelf = try context.insert("Shelf", key: "s")
        let tag = try context.insert("Tag", key: "t")
        for (entity, key, title, year) in [("Book", "b1", "Dune", 1965), ("Magazine", "m1", "Byte", 1981), ("Book", "b2", "Emma", 1815)] {
            let item = try context.insert(entity, key: key)
            item["title"] = .string(title)
            item["year"] = .integer(Int64(year))
            try item.setTarget(shelf.id, of: "shelf")
            try item.add(tag.id, to: "tags")
        }
        try context.object(try GlobalID("Magazine/m1"))!["issue"] = .integer(42)
        try shelf.setTarget(try GlobalID("Magazine/m1"), of: "favourite")
        try context.save()
    }

    @Test func aFetchOfTheParentReturnsEverySubEntitysObjects() throws {
        let cloud = try TestCloud(model: Self.model, contentName: "Library")
        let a = try cloud.peer("a"), b = try cloud.peer("b")
        try fill(a)
        _ = try b.sync()
        for peer in [a, b] {
            let store = peer.store
            let byTitle = try store.fetch(FetchRequest(entity: "Item", sortDescriptors: [FetchSortDescriptor("title")]))
            #expect(byTitle.map(\.id.description) == ["Magazine/m1", "Book/b1", "Book/b2"])
            let byYear = try store.fetch(FetchRequest(entity: "Item", sortDescriptors: [FetchSortDescriptor("year", ascending: false)], limit: 2))
            #expect(byYear.map(\.id.description) == ["Magazine/m1", "Book/b1"])
            let item = try store.model.entity(named: "Item")
            let old = try store.fetch(FetchRequest(entity: "Item", predicate: try FetchPredicate.parse("year < 1970 AND title != 'Emma'", entity: item)))
            #expect(old.map(\.id.description) == ["Book/b1"])
            #expect(try store.count(FetchRequest(entity: "Item")) == 3)
            #expect(try store.fetch(FetchRequest(entity: "Item", includesSubentities: false)).isEmpty)
            #expect(try store.fetch(FetchRequest(entity: "Book")).map(\.id.description) == ["Book/b1", "Book/b2"])
            #expect(try store.targets(of: "items", of: try GlobalID("Shelf/s")).map(\.description) == ["Book/b1", "Book/b2", "Magazine/m1"])
            #expect(try store.targets(of: "items", of: try GlobalID("Tag/t")).count == 3)
            #expect(try store.snapshot(of: try GlobalID("Shelf/s"))?.toOne["favourite"] == .some(try GlobalID("Magazine/m1")))
            #expect(try store.snapshot(of: try GlobalID("Magazine/m1"))?.values["issue"] == .integer(42))
        }
        #expect(try a.dumpText() == b.dumpText())
        #expect(!(try a.dumpText()).contains("\"entity\":\"Item\""), "the dump lists each object once, under its own entity")
    }

    @Test func anAbstractEntityHasNoObjects() throws {
        let cloud = try TestCloud(model: Self.model, contentName: "Library")
        let context = try cloud.peer("a").newContext()
        #expect(throws: ModelError.abstractEntity("Item")) { try context.insert("Item") }
        let shelf = try context.insert("Shelf", key: "s")
        #expect(throws: RelationshipError.wrongDestination(entity: "Shelf", relationship: "favourite", destination: "Item", target: shelf.id)) {
            try PropertyAssignment(name: "favourite", text: "Shelf/s").apply(to: shelf, in: context)
        }
    }

    /// Cascades and many-to-many pairs work across the hierarchy, and sync.
    @Test func deletesCascadeToSubEntityObjects() throws {
        let cloud = try TestCloud(model: Self.model, contentName: "Library")
        let a = try cloud.peer("a"), b = try cloud.peer("b")
        try fill(a)
        _ = try b.sync()
        let context = b.newContext()
        context.delete(try #require(try context.object(try GlobalID("Shelf/s"))))
        try context.save()
        _ = try a.sync()
        for peer in [a, b] {
            #expect(try peer.store.count(FetchRequest(entity: "Item")) == 0)
            #expect(try peer.store.targets(of: "items", of: try GlobalID("Tag/t")).isEmpty)
        }
        #expect(try a.dumpText() == b.dumpText())
    }
}
