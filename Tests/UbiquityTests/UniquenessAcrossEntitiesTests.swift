import Foundation
import Testing
@testable import Ubiquity
import UbiquityTestSupport

/// A constraint declared on an abstract parent holds between objects of sibling entities: they
/// become one object, which keeps the winner's entity, and no relationship is ever left naming
/// an object of an entity it cannot hold (Docs/SyncSemantics.md, uniqueness constraints).
@Suite("Uniqueness constraints across sibling entities")
struct UniquenessAcrossEntitiesTests {
    /// An abstract `Item` unique by `code`; `Tool` and `Part` below it; a `Kit` of tools, with a lead tool.
    static let model: ObjectModel = {
        var item = EntityDescription("Item", attributes: [AttributeDescription("code", .string), AttributeDescription("title", .string)], abstract: true)
        item.uniquenessConstraints = [["code"]]
        return try! ObjectModel(name: "Shop", entities: [
            item,
            EntityDescription("Tool", attributes: [AttributeDescription("weight", .double)], relationships: [
                RelationshipDescription("kits", destination: "Kit", inverse: "tools", toMany: true),
            ], parent: "Item"),
            EntityDescription("Part", attributes: [AttributeDescription("quantity", .integer32)], parent: "Item"),
            EntityDescription("Kit", attributes: [AttributeDescription("name", .string)], relationships: [
                RelationshipDescription("tools", destination: "Tool", inverse: "kits", toMany: true),
                RelationshipDescription("lead", destination: "Tool"),
            ]),
        ])
    }()

    func items(_ peer: UbiquityPeer, code: String) throws -> [GlobalID] {
        try peer.store.fetch(FetchRequest(entity: "Item")).filter { $0.values["code"] == .some(.string(code)) }.map(\.id)
    }

    /// Neither kit names anything but a tool.
    func expectKitsHoldOnlyTools(_ peer: UbiquityPeer, _ kits: [GlobalID]) throws {
        for kit in kits {
            let tools = try peer.store.targets(of: "tools", of: kit)
            #expect(tools.allSatisfy { $0.entity == "Tool" }, "\(kit).tools: \(tools)")
            let lead = try peer.store.snapshot(of: kit)?.toOne["lead"] ?? nil
            #expect(lead.map { $0.entity == "Tool" } ?? true, "\(kit).lead: \(String(describing: lead))")
        }
    }

    @Test func anInsertCollidingWithASiblingIsRefusedWhenARelationshipCannotFollow() throws {
        let cloud = try TestCloud(model: Self.model, contentName: "Shop")
        let peer = try cloud.peer("a")
        let first = peer.newContext()
        let part = try first.insert("Part")
        try part.set("code", "X")
        try first.save()

        let second = peer.newContext()
        second.mergePolicy = .propertyObjectTrump
        let tool = try second.insert("Tool")
        try tool.set("code", "X")
        let kit = try second.insert("Kit")
        try kit.add(tool.id, to: "tools")
        #expect(throws: UniquenessConstraintError.insertCollidesWithOtherEntity(object: tool.id, existing: part.id, relationship: "Kit.tools")) {
            try second.save()
        }
        #expect(try items(peer, code: "X") == [part.id], "nothing was saved")

        // With nothing pointing at it, the tool becomes the part, as any colliding insert.
        let third = peer.newContext()
        third.mergePolicy = .propertyObjectTrump
        let again = try third.insert("Tool")
        try again.set("code", "X")
        try again.set("title", "drill")
        try third.save()
        #expect(try items(peer, code: "X") == [part.id])
        #expect(try peer.store.snapshot(of: part.id)?.values["title"] == .some(.string("drill")))
    }

    /// Peer b inserts tool X with a kit of it and leading it; peer c, having seen b's, puts the
    /// tool in a kit of its own; peer a inserts part X, seeing neither. The part wins (the lower
    /// ID): the kits lose the tool, in the conflict history, and every peer holds the same.
    @Test func concurrentSiblingInsertsBecomeOneObjectAndNoKitNamesAPart() throws {
        for order in [[0, 1, 2], [2, 1, 0], [1, 0, 2]] {
            let cloud = try TestCloud(model: Self.model, contentName: "Shop")
            let a = try cloud.peer("a"), b = try cloud.peer("b"), c = try cloud.peer("c")
            let peers = [a, b, c]
            defer { for peer in peers { peer.close() } }
            let inB = b.newContext()
            let tool = try inB.insert("Tool", key: "x")
            try tool.set("code", "X")
            try tool.set("weight", 2.5)
            let kit = try inB.insert("Kit", key: "k1")
            try kit.add(tool.id, to: "tools")
            try kit.setTarget(tool.id, of: "lead")
            try inB.save()
            _ = try b.sync()
            _ = try c.sync()
            let inC = c.newContext()
            let other = try inC.insert("Kit", key: "k2")
            try other.add(tool.id, to: "tools")
            try other.setTarget(tool.id, of: "lead")
            try inC.save()
            let inA = a.newContext()
            let part = try inA.insert("Part", key: "x")
            try part.set("code", "X")
            try part.set("quantity", 4)
            try inA.save()

            for index in order { _ = try peers[index].sync() }
            for _ in 0..<2 { for peer in peers { #expect(try peer.sync().imported.quarantined.isEmpty, "order \(order)") } }
            let dump = try a.dumpText()
            for peer in peers {
                #expect(try peer.dumpText() == dump, "order \(order): every peer alike")
                #expect(try items(peer, code: "X") == [part.id], "order \(order): one object, the part")
                try expectKitsHoldOnlyTools(peer, [kit.id, other.id])
                let dropped = Set(try peer.store.conflicts().filter { $0.kind == .uniqueness }.map { "\($0.object).\($0.property)" })
                for kit in [kit.id, other.id] {
                    #expect(dropped.contains("\(kit).lead") && (dropped.contains("\(kit).tools[\(tool.id)]") || dropped.contains("\(tool.id).kits[\(kit)]")),
                            "order \(order): \(kit)'s tool is in the history: \(dropped.sorted())")
                }
                #expect(dropped.contains("\(tool.id).weight"), "order \(order): the tool's own value too")
            }
        }
    }
}
