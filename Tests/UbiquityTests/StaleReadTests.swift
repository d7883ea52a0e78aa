import Foundation
import Testing
@testable import Ubiquity
import UbiquityTestSupport

/// `ObjectContext.object(_:asRead:)`: a read stated outright. It conflicts only when the store
/// holds other values than expected, and then behaves as a read an import overtook.
@Suite("Stale reads")
struct StaleReadTests {
    func store() throws -> (TestCloud, UbiquityPeer, GlobalID) {
        let cloud = try TestCloud()
        let peer = try cloud.peer("phone", policy: nil)
        let context = peer.newContext()
        let note = try context.insert("Note", key: "n")
        note["title"] = .string("store")
        note["body"] = .string("store body")
        try context.save()
        return (cloud, peer, note.id)
    }

    @Test func aMetExpectationIsAnOrdinaryRead() throws {
        let (cloud, peer, id) = try store()
        let context = peer.newContext()
        let note = try #require(try context.object(id, asRead: ["title": .attribute(.string("store"))]))
        note["title"] = .string("mine")
        #expect(try context.save() != nil)
        #expect(context.resolvedConflicts.isEmpty)
        #expect(try peer.store.snapshot(of: id)?.values["title"] == .some(.string("mine")))
        _ = cloud
    }

    @Test func anUnmetExpectationConflictsWithTheReadValuesInTheSnapshot() throws {
        let (cloud, peer, id) = try store()
        let context = peer.newContext()
        let note = try #require(try context.object(id, asRead: ["title": .attribute(.string("read")), "folder": .target(nil)]))
        #expect(note["title"] == .string("read") && note["body"] == .string("store body"), "reads see the stated read")
        note["title"] = .string("mine")
        #expect { try context.save() } throws: { error in
            guard let conflicts = (error as? MergeConflictsError)?.conflicts, conflicts.count == 1 else { return false }
            return conflicts[0].kind == .updated && conflicts[0].snapshot["title"] == .some(.string("read"))
                && conflicts[0].persisted["title"] == .some(.string("store")) && conflicts[0].changes["title"] == .some(.string("mine"))
        }
        context.mergePolicy = .propertyObjectTrump
        #expect(try context.save() != nil)
        #expect(context.resolvedConflicts.map(\.object) == [id])
        #expect(try peer.store.snapshot(of: id)?.values["title"] == .some(.string("mine")))
        _ = cloud
    }

    /// A policy that drops every change saves nothing: no transaction, nothing in the outbox.
    @Test func aRollbackThatKeepsTheStoreLogsNothing() throws {
        let (cloud, peer, id) = try store()
        let knowledge = peer.store.knowledge
        let context = peer.newContext()
        context.mergePolicy = .rollback
        let note = try #require(try context.object(id, asRead: ["title": .attribute(.string("read"))]))
        note["title"] = .string("mine")
        #expect(try context.save() == nil)
        #expect(context.resolvedConflicts.count == 1)
        #expect(peer.store.knowledge == knowledge)
        #expect(try peer.store.pendingOutbox().isEmpty)
        #expect(try peer.store.snapshot(of: id)?.values["title"] == .some(.string("store")))
        _ = cloud
    }

    @Test func unknownPropertiesAreRefused() throws {
        let (cloud, peer, id) = try store()
        let context = peer.newContext()
        #expect(throws: ModelError.unknownProperty(entity: "Note", property: "nope")) { try context.object(id, asRead: ["nope": .attribute(nil)]) }
        #expect(throws: ModelError.unknownProperty(entity: "Note", property: "tags")) { try context.object(id, asRead: ["tags": .target(nil)]) }
        _ = cloud
    }
}
