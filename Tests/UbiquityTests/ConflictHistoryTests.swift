import Foundation
import Testing
@testable import Ubiquity

/// The conflict history keeps every concurrent overwrite typed by the property it was written
/// to — an attribute's value, a to-one's target, a pair's membership, a member's position —
/// whichever merge path found it, and every peer that applied the same logs holds the same one.
@Suite("The conflict history keeps typed values")
final class ConflictHistoryTests {
    let note = try! GlobalID(entity: "Note", key: "n")
    let folderA = try! GlobalID(entity: "Folder", key: "a")
    let folderB = try! GlobalID(entity: "Folder", key: "b")
    let tag = try! GlobalID(entity: "Tag", key: "t")

    /// This test's stores (each test gets an instance of its own).
    let directory = NSTemporaryDirectory() + "ubiquity-conflict-history-" + UUID().uuidString

    deinit { try? FileManager.default.removeItem(atPath: directory) }

    func store(_ peer: String, model: ObjectModel) throws -> PersistentStore {
        try PersistentStore(path: "\(directory)/\(peer).sqlite", model: model, peerID: peer, storeName: "Store", contentName: model.name)
    }

    /// Commits `updated` (and `deleted`) on `store` as one local transaction.
    func commit(_ store: PersistentStore, inserted: [ChangeRecord] = [], updated: [ChangeRecord] = [], deleted: [GlobalID] = []) throws -> TransactionLog {
        try #require(try store.commitLocal(inserted: inserted, updated: updated, deleted: deleted)).log
    }

    /// Two stores that share `base`, then each commit one concurrent edit and import the other's.
    func concurrent(model: ObjectModel = .notes, base: [ChangeRecord],
                    ann: (PersistentStore) throws -> TransactionLog, bob: (PersistentStore) throws -> TransactionLog) throws -> [PersistentStore] {
        let a = try store("ann~1", model: model), b = try store("bob~1", model: model)
        _ = try b.applyImported([try commit(a, inserted: base)])
        let fromAnn = try ann(a), fromBob = try bob(b)
        _ = try a.applyImported([fromBob])
        _ = try b.applyImported([fromAnn])
        return [a, b]
    }

    /// Whether the conflict's winner is the value of the peer whose stamp won, and its loser the other's.
    func wonByStamp(_ conflict: ConflictRecord, ann: ConflictValue, bob: ConflictValue) throws -> Bool {
        let winner = try #require(Stamp(conflict.winnerStamp)), loser = try #require(Stamp(conflict.loserStamp))
        guard winner > loser else { return false }
        return conflict.winnerPeer == "ann~1" ? (conflict.winnerValue, conflict.loserValue) == (ann, bob)
                                               : (conflict.winnerValue, conflict.loserValue) == (bob, ann)
    }

    /// A conflict without its local id and time: what every peer must agree on.
    func shape(_ conflict: ConflictRecord) -> String {
        "\(conflict.object) \(conflict.property) \(conflict.kind) \(conflict.winnerValue) \(conflict.loserValue) \(conflict.winnerStamp) \(conflict.loserStamp)"
    }

    @Test func updatesAgainstUpdatesKeepValuesTargetsAndMemberships() throws {
        let base = [ChangeRecord(id: note, values: ["title": .string("base")]), ChangeRecord(id: folderA, values: ["name": .string("a")]),
                    ChangeRecord(id: folderB, values: ["name": .string("b")]), ChangeRecord(id: tag, values: ["name": .string("t")])]
        let stores = try concurrent(base: base, ann: { store in
            try commit(store, updated: [ChangeRecord(id: note, values: ["title": .string("from ann")],
                                                     relationships: ["folder": .toOne(folderA), "tags": .toMany(added: [tag], removed: [])])])
        }, bob: { store in
            try commit(store, updated: [ChangeRecord(id: note, values: ["title": .string("from bob")],
                                                     relationships: ["folder": .toOne(folderB), "tags": .toMany(added: [], removed: [tag])])])
        })
        for store in stores {
            let conflicts = try store.conflicts()
            #expect(conflicts.allSatisfy { $0.kind == .update })
            let title = try #require(conflicts.first { $0.property == "title" })
            #expect(try wonByStamp(title, ann: .attribute(.string("from ann")), bob: .attribute(.string("from bob"))))
            let folder = try #require(conflicts.first { $0.property == "folder" })
            #expect(try wonByStamp(folder, ann: .target(folderA), bob: .target(folderB)))
            let pair = try #require(conflicts.first { ConflictRecord.pair(in: $0.property) != nil })
            #expect(try wonByStamp(pair, ann: .member(true), bob: .member(false)))
            #expect(try store.conflict(title.id) == title)
        }
        #expect(try stores[0].conflicts().map(shape) == stores[1].conflicts().map(shape))
    }

    @Test func writesAgainstADeleteKeepTheLostValueAndNoWinner() throws {
        let base = [ChangeRecord(id: note, values: ["title": .string("base")]), ChangeRecord(id: folderB, values: ["name": .string("b")])]
        let stores = try concurrent(base: base, ann: { store in
            try commit(store, deleted: [note])
        }, bob: { store in
            try commit(store, updated: [ChangeRecord(id: note, values: ["title": .string("edited")], relationships: ["folder": .toOne(folderB)])])
        })
        for store in stores {
            let conflicts = try store.conflicts()
            let title = try #require(conflicts.first { $0.property == "title" })
            #expect(title.kind == .delete)
            #expect(title.winnerValue == .attribute(nil))
            #expect(title.loserValue == .attribute(.string("edited")))
            let folder = try #require(conflicts.first { $0.property == "folder" })
            #expect(folder.kind == .delete)
            #expect(folder.winnerValue == .target(nil))
            #expect(folder.loserValue == .target(folderB))
            #expect(folder.winnerPeer == "ann~1" && folder.loserPeer == "bob~1")
        }
    }

    @Test func concurrentMovesKeepBothPositions() throws {
        let playlist = try GlobalID(entity: "Playlist", key: "mix"), song = try GlobalID(entity: "Song", key: "a")
        let base = [ChangeRecord(id: song, values: ["title": .string("a")]),
                    ChangeRecord(id: playlist, relationships: ["songs": .toMany(added: [song], removed: [])], positions: ["songs": [song: "V"]])]
        let stores = try concurrent(model: OrderedRelationshipTests.model, base: base, ann: { store in
            try commit(store, updated: [ChangeRecord(id: playlist, positions: ["songs": [song: "G"]])])
        }, bob: { store in
            try commit(store, updated: [ChangeRecord(id: playlist, positions: ["songs": [song: "k"]])])
        })
        for store in stores {
            let conflict = try #require(try store.conflicts().first { $0.property == "songs[\(song)].position" })
            #expect(conflict.kind == .update)
            #expect(try wonByStamp(conflict, ann: .attribute(.string("G")), bob: .attribute(.string("k"))))
        }
        #expect(try stores[0].conflicts().map(shape) == stores[1].conflicts().map(shape))
    }
}
