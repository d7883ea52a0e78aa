import Foundation
import Testing
@testable import Ubiquity
import UbiquityTestSupport

@Suite("Updates, deletes and every kind of relationship travel between peers")
struct RelationshipSyncTests {
    /// Syncs every peer twice, so everything written reaches everybody.
    func syncAll(_ peers: [UbiquityPeer]) throws {
        for _ in 0..<2 { for peer in peers { _ = try peer.sync() } }
    }

    @Test func updatesAndDeletesReachThreePeers() throws {
        let cloud = try TestCloud()
        let peers = try cloud.peers(3)
        let context = peers[0].newContext()
        let first = try context.insert("Note", key: "first")
        first["title"] = .string("one")
        let second = try context.insert("Note", key: "second")
        second["title"] = .string("two")
        try context.save()
        try syncAll(peers)

        let other = peers[1].newContext()
        let edited = try #require(try other.object(first.id))
        edited["title"] = .string("one, edited on b")
        edited["body"] = .string("body")
        try other.save()
        let third = peers[2].newContext()
        third.delete(try #require(try third.object(second.id)))
        try third.save()
        try syncAll(peers)

        for peer in peers {
            #expect(try peer.store.snapshot(of: first.id)?.values["title"] == .string("one, edited on b"))
            #expect(try peer.store.snapshot(of: first.id)?.values["body"] == .string("body"))
            #expect(try peer.store.snapshot(of: second.id) == nil)
            #expect(try peer.store.isDeleted(second.id))
        }
        #expect(try peers[0].mergeStateText() == peers[1].mergeStateText())
        #expect(try peers[1].mergeStateText() == peers[2].mergeStateText())
    }

    @Test func toOneToManyAndManyToManyChangesConverge() throws {
        let cloud = try TestCloud()
        let peers = try cloud.peers(3)
        let a = peers[0].newContext()
        let work = try a.insert("Folder", key: "work")
        let home = try a.insert("Folder", key: "home")
        let note = try a.insert("Note", key: "n1")
        let urgent = try a.insert("Tag", key: "urgent")
        let later = try a.insert("Tag", key: "later")
        try note.setTarget(work.id, of: "folder")
        try note.add(urgent.id, to: "tags")
        try a.save()
        try syncAll(peers)
        for peer in peers {
            #expect(try peer.store.targets(of: "notes", of: work.id) == [note.id])
            #expect(try peer.store.targets(of: "tags", of: note.id) == [urgent.id])
            #expect(try peer.store.targets(of: "notes", of: urgent.id) == [note.id])
        }

        // b moves the note through the to-many side; c edits the many-to-many from the Tag side.
        let b = peers[1].newContext()
        try #require(try b.object(home.id)).add(note.id, to: "notes")
        try b.save()
        let c = peers[2].newContext()
        let laterOnC = try #require(try c.object(later.id))
        try laterOnC.add(note.id, to: "notes")
        try #require(try c.object(urgent.id)).remove(note.id, from: "notes")
        try c.save()
        try syncAll(peers)

        for peer in peers {
            #expect(try peer.store.snapshot(of: note.id)?.toOne["folder"] == .some(home.id))
            #expect(try peer.store.targets(of: "notes", of: work.id).isEmpty)
            #expect(try peer.store.targets(of: "notes", of: home.id) == [note.id])
            #expect(try peer.store.targets(of: "tags", of: note.id) == [later.id])
            #expect(try peer.store.targets(of: "notes", of: urgent.id).isEmpty)
        }
        let dumps = try peers.map { try $0.dumpText() }
        #expect(Set(dumps).count == 1)
    }

    @Test func cascadeDeletesTravelAndDenyRefuses() throws {
        let cloud = try TestCloud()
        let peers = try cloud.peers(2)
        let a = peers[0].newContext()
        let folder = try a.insert("Folder", key: "f")
        var notes: [GlobalID] = []
        for index in 0..<3 {
            let note = try a.insert("Note", key: "n\(index)")
            try note.setTarget(folder.id, of: "folder")
            notes.append(note.id)
        }
        try a.save()
        try syncAll(peers)
        let b = peers[1].newContext()
        b.delete(try #require(try b.object(folder.id)))
        let log = try #require(try b.save())
        #expect(Set(log.deleted) == Set([folder.id] + notes), "the cascade is logged as deletes")
        try syncAll(peers)
        for peer in peers {
            #expect(try peer.store.fetch(FetchRequest(entity: "Note")).isEmpty)
            #expect(try peer.store.fetch(FetchRequest(entity: "Folder")).isEmpty)
        }

        let model = try ObjectModel(name: "Deny", entities: [
            EntityDescription("Owner", relationships: [RelationshipDescription("pets", destination: "Pet", inverse: "owner", toMany: true, deleteRule: .deny)]),
            EntityDescription("Pet", relationships: [RelationshipDescription("owner", destination: "Owner", inverse: "pets")]),
        ])
        let denyCloud = try TestCloud(model: model, contentName: "Deny")
        let peer = try denyCloud.peer("solo")
        let context = peer.newContext()
        let owner = try context.insert("Owner")
        try context.insert("Pet").setTarget(owner.id, of: "owner")
        try context.save()
        context.delete(owner)
        #expect(throws: StoreError.deleteDenied(object: owner.id, relationship: "pets", count: 1)) { try context.save() }
        #expect(try peer.store.isAlive(owner.id), "a denied delete saves nothing")
    }

    @Test func naturalKeysDoNotDuplicateAndReinsertAfterDeleteResurrects() throws {
        let cloud = try TestCloud()
        let peers = try cloud.peers(2)
        for (index, peer) in peers.enumerated() {
            let context = peer.newContext()
            let tag = try context.insert("Tag", key: "inbox")
            tag["name"] = .string("Inbox from \(index)")
            try context.save()
        }
        try syncAll(peers)
        for peer in peers { #expect(try peer.store.count(FetchRequest(entity: "Tag")) == 1) }
        #expect(try peers[0].dumpText() == peers[1].dumpText())

        // Delete on a, then b (having seen the delete) inserts the same key again: it lives.
        let id = try GlobalID(entity: "Tag", key: "inbox")
        let a = peers[0].newContext()
        a.delete(try #require(try a.object(id)))
        try a.save()
        try syncAll(peers)
        let b = peers[1].newContext()
        try b.insert("Tag", key: "inbox")["name"] = .string("back again")
        try b.save()
        try syncAll(peers)
        for peer in peers { #expect(try peer.store.snapshot(of: id)?.values["name"] == .string("back again")) }
    }

    @Test func deleteWinsOverConcurrentUpdateAndTheLoserIsRecorded() throws {
        let cloud = try TestCloud()
        let peers = try cloud.peers(2)
        let a = peers[0].newContext()
        let note = try a.insert("Note", key: "doomed")
        try a.save()
        try syncAll(peers)
        let b = peers[1].newContext()
        try #require(try b.object(note.id))["title"] = .string("edited while deleted elsewhere")
        try b.save()
        a.delete(try #require(try a.object(note.id)))
        try a.save()
        try syncAll(peers)
        for peer in peers {
            #expect(try peer.store.snapshot(of: note.id) == nil)
            let losers = try peer.store.conflicts().filter { $0.kind == .delete && $0.property == "title" }
            #expect(losers.contains { $0.loserValue == .attribute(.string("edited while deleted elsewhere")) })
        }
        #expect(try peers[0].mergeStateText() == peers[1].mergeStateText())
        // A loser of a delete has no value to save again; an ID the history lacks is named.
        let loser = try #require(try peers[0].store.conflicts().first { $0.kind == .delete && $0.property == "title" })
        #expect(throws: ConflictResolutionError.deleteConflict(object: note.id, property: "title")) { try peers[0].restoreLoser(ofConflict: loser.id) }
        #expect(throws: ConflictResolutionError.unknownConflict(9_999)) { try peers[0].restoreLoser(ofConflict: 9_999) }
        #expect("\(ConflictResolutionError.unknownConflict(9_999))" == "no conflict 9999 in the history")
    }
}
