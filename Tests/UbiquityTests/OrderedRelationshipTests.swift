import Foundation
import Testing
@testable import Ubiquity
@testable import UbiquityCore
import UbiquityTestSupport

/// Ordered to-many relationships (Core Data's `ordered`) synced: the order is merge state
/// (Docs/SyncSemantics.md, "Ordered to-many"). Model: containers/models/Playlists.plist —
/// Playlist.songs is an ordered many-to-many, Album.songs an ordered to-many with a to-one inverse.
@Suite("Ordered to-many relationships keep one order on every peer")
struct OrderedRelationshipTests {
    static let model: ObjectModel = {
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        do { return try ObjectModel.load(contentsOf: repository.appendingPathComponent("containers/models/Playlists.plist").path) } catch {
            fatalError("containers/models/Playlists.plist: \(error)")
        }
    }()
    let playlist = try! GlobalID(entity: "Playlist", key: "mix")

    func cloud() throws -> TestCloud { try TestCloud(model: Self.model, contentName: "Playlists") }

    func syncAll(_ peers: [UbiquityPeer]) throws {
        for _ in 0..<2 { for peer in peers { _ = try peer.sync() } }
    }

    func song(_ key: String) -> GlobalID { try! GlobalID(entity: "Song", key: key) }

    func keys(_ ids: [GlobalID]) -> [String] { ids.map { $0.description.replacingOccurrences(of: "Song/", with: "") } }

    func order(_ peer: UbiquityPeer, _ owner: GlobalID? = nil, _ relationship: String = "songs") throws -> [String] {
        keys(try peer.store.targets(of: relationship, of: owner ?? playlist))
    }

    /// Inserts songs on `peer` at the given indexes of the playlist, in one save.
    func insert(_ peer: UbiquityPeer, _ placements: [(String, Int)]) throws {
        let context = peer.newContext()
        let list = try context.object(playlist) ?? context.insert("Playlist", key: "mix")
        for (key, index) in placements {
            let song = try context.insert("Song", key: key)
            song["title"] = .string(key)
            try list.insert(song.id, into: "songs", at: index)
        }
        try context.save()
    }

    @Test func songsInsertedInOrderArriveInThatOrder() throws {
        let cloud = try cloud()
        let a = try cloud.peer("a"), b = try cloud.peer("b")
        try insert(a, [("c", 0)])
        try insert(a, [("a", 1)])
        try insert(a, [("b", 2)])
        #expect(try order(a) == ["c", "a", "b"])
        try syncAll([a, b])
        #expect(try order(b) == ["c", "a", "b"])
        let context = b.newContext()
        #expect(keys(try #require(try context.object(playlist)).targets(of: "songs")) == ["c", "a", "b"], "a context reads in order too")
        #expect(try a.mergeStateText() == b.mergeStateText())
    }

    @Test func bothPeersInsertingAtTheFrontWhileApartKeepBothInOneOrder() throws {
        let cloud = try cloud()
        let a = try cloud.peer("a"), b = try cloud.peer("b")
        try insert(a, [("x", 0), ("y", 1)])
        try syncAll([a, b])
        try insert(a, [("fromA", 0)])
        try insert(b, [("fromB", 0)])
        try syncAll([a, b])
        let first = try order(a)
        #expect(try order(b) == first)
        #expect(Set(first.prefix(2)) == ["fromA", "fromB"], "both front inserts are before the old members: \(first)")
        #expect(Array(first.suffix(2)) == ["x", "y"])
        #expect(try a.mergeStateText() == b.mergeStateText())
    }

    @Test func concurrentInsertsBetweenTheSameNeighboursStayBetweenThem() throws {
        let cloud = try cloud()
        let a = try cloud.peer("a"), b = try cloud.peer("b")
        try insert(a, [("x", 0), ("y", 1)])
        try syncAll([a, b])
        try insert(a, [("a1", 1), ("a2", 2)])
        try insert(b, [("b1", 1)])
        try syncAll([a, b])
        let merged = try order(a)
        #expect(try order(b) == merged)
        #expect(merged.first == "x" && merged.last == "y", "\(merged)")
        #expect(merged.firstIndex(of: "a1")! < merged.firstIndex(of: "a2")!, "one peer's inserts keep their order: \(merged)")
    }

    @Test func aMoveAndARemovalOfTheSameSongMergeAsTheRemoval() throws {
        let cloud = try cloud()
        let a = try cloud.peer("a"), b = try cloud.peer("b")
        try insert(a, [("one", 0), ("two", 1), ("three", 2)])
        try syncAll([a, b])
        let onA = a.newContext()
        try #require(try onA.object(playlist)).move(song("three"), in: "songs", to: 0)
        try #require(try onA.object(playlist)).move(song("one"), in: "songs", to: 2)
        try onA.save()
        #expect(try order(a) == ["three", "two", "one"])
        let onB = b.newContext()
        try #require(try onB.object(playlist)).remove(song("three"), from: "songs")
        try onB.save()
        try syncAll([a, b])
        #expect(try order(a) == ["two", "one"], "the removal holds; the other move stays")
        #expect(try order(b) == ["two", "one"])
        #expect(try a.mergeStateText() == b.mergeStateText())

        // Both peers move the same song apart: the later move wins on both.
        let moveA = a.newContext()
        try #require(try moveA.object(playlist)).move(song("one"), in: "songs", to: 0)
        try moveA.save()
        let moveB = b.newContext()
        try #require(try moveB.object(playlist)).move(song("two"), in: "songs", to: 1)
        try moveB.save()
        try syncAll([a, b])
        #expect(try order(a) == order(b))
        #expect(try order(a) == ["one", "two"])
    }

    @Test func concurrentMovesOfOneSongAreAConflictWhoseLoserCanBeRestored() throws {
        let cloud = try cloud()
        let a = try cloud.peer("a"), b = try cloud.peer("b")
        try insert(a, [("one", 0), ("two", 1), ("three", 2)])
        try syncAll([a, b])
        let onA = a.newContext()
        try #require(try onA.object(playlist)).move(song("one"), in: "songs", to: 2)
        try onA.save()
        let onB = b.newContext()
        try #require(try onB.object(playlist)).move(song("one"), in: "songs", to: 1)
        try onB.save()
        try syncAll([a, b])
        let merged = try order(a)
        #expect(try order(b) == merged)
        let conflict = try #require(try a.store.conflicts().first { $0.property == "songs[Song/one].position" })
        let winnerOrder = merged
        #expect(winnerOrder == (conflict.winnerPeer == a.peerID ? ["two", "three", "one"] : ["two", "one", "three"]))
        _ = try a.restoreLoser(ofConflict: conflict.id)
        try syncAll([a, b])
        let restored = conflict.winnerPeer == a.peerID ? ["two", "one", "three"] : ["two", "three", "one"]
        #expect(try order(a) == restored && order(b) == restored, "the loser's place is saved again and wins everywhere")
    }

    @Test func aDeletedSongLeavesTheOrderAndTheOthersKeepTheirs() throws {
        let cloud = try cloud()
        let a = try cloud.peer("a"), b = try cloud.peer("b")
        try insert(a, [("one", 0), ("two", 1), ("three", 2)])
        try syncAll([a, b])
        let onB = b.newContext()
        onB.delete(try #require(try onB.object(song("two"))))
        try onB.save()
        try insert(a, [("four", 2)])     // between two and three on a, which still has two
        try syncAll([a, b])
        #expect(try order(a) == ["one", "four", "three"])
        #expect(try order(b) == ["one", "four", "three"])
        let dump = try b.dumpText()
        #expect(dump.contains("\"songs\":[\"Song/one\",\"Song/four\",\"Song/three\"]"), "dump prints the members in order: \(dump)")
    }

    @Test func anOrderedToManyWithAToOneInverseKeepsItsOrder() throws {
        let cloud = try cloud()
        let a = try cloud.peer("a"), b = try cloud.peer("b")
        let album = try GlobalID(entity: "Album", key: "abbey")
        let context = a.newContext()
        let record = try context.insert("Album", key: "abbey")
        for key in ["come", "something", "maxwell"] { _ = try context.insert("Song", key: key) }
        try record.add(song("come"), to: "songs")
        try record.add(song("something"), to: "songs")
        try record.insert(song("maxwell"), into: "songs", at: 0)
        try context.save()
        #expect(try order(a, album) == ["maxwell", "come", "something"])
        try syncAll([a, b])
        #expect(try order(b, album) == ["maxwell", "come", "something"])
        // Setting the to-one appends, as Core Data does.
        let onB = b.newContext()
        let oh = try onB.insert("Song", key: "oh")
        try oh.setTarget(album, of: "album")
        try onB.save()
        try syncAll([a, b])
        #expect(try order(a, album) == ["maxwell", "come", "something", "oh"])
        #expect(try a.mergeStateText() == b.mergeStateText())
    }

    @Test func theOrderSurvivesABaselineAndAJoinWithLocalEdits() throws {
        let cloud = try cloud()
        let a = try cloud.peer("a", policy: nil), b = try cloud.peer("b", policy: nil)
        try insert(a, [("c", 0), ("a", 1), ("b", 2)])
        _ = try a.sync()
        guard case .rolled = try a.rollBaseline(force: true) else {
            Issue.record("a rolls a baseline")
            return
        }
        #expect(a.collectGarbage(now: Date().addingTimeInterval(365 * 86_400)).deleted.count >= 1)
        let newcomer = try cloud.peer("newcomer", policy: nil)
        let summary = try newcomer.sync()
        #expect(summary.adoptedBaseline != nil, "the newcomer starts from the baseline")
        #expect(try order(newcomer) == ["c", "a", "b"])

        // b saved a move before it ever synced: the join keeps it and both converge.
        try insert(b, [("d", 0)])
        let onB = b.newContext()
        try #require(try onB.object(playlist)).move(song("d"), in: "songs", to: 0)
        try onB.save()
        try syncAll([a, b, newcomer])
        #expect(try order(a) == order(b))
        #expect(try order(newcomer) == order(b))
        #expect(Set(try order(a)) == ["a", "b", "c", "d"])
        #expect(try a.mergeStateText() == newcomer.mergeStateText())
    }

    @Test func membersAddedWithoutAPositionComeLastByID() throws {
        let cloud = try cloud()
        let a = try cloud.peer("a"), b = try cloud.peer("b")
        try insert(a, [("b", 0), ("a", 1)])
        // What a build that knew no order logs: membership only.
        let songs = [song("z"), song("m")]
        _ = try a.store.commitLocal(inserted: songs.map { ChangeRecord(id: $0, values: ["title": .string($0.description)]) },
                                    updated: [ChangeRecord(id: playlist, relationships: ["songs": .toMany(added: songs, removed: [])])], deleted: [])
        try syncAll([a, b])
        #expect(try order(a) == ["b", "a", "m", "z"])
        #expect(try order(b) == ["b", "a", "m", "z"])
        // Placing one of them gives it a key like any other member.
        let context = b.newContext()
        try #require(try context.object(playlist)).move(song("z"), in: "songs", to: 0)
        try context.save()
        try syncAll([a, b])
        #expect(try order(a) == ["z", "b", "a", "m"])
    }

    @Test func indexesOutOfRangeAndUnorderedRelationshipsAreRefused() throws {
        let cloud = try cloud()
        let a = try cloud.peer("a")
        try insert(a, [("one", 0)])
        let context = a.newContext()
        let list = try #require(try context.object(playlist))
        let other = try context.insert("Song", key: "two")
        #expect(throws: RelationshipError.indexOutOfRange(index: 5, upperBound: 1, relationship: "songs", object: playlist)) {
            try list.insert(other.id, into: "songs", at: 5)
        }
        #expect(throws: RelationshipError.indexOutOfRange(index: 1, upperBound: 0, relationship: "songs", object: playlist)) {
            try list.move(song("one"), in: "songs", to: 1)
        }
        #expect(throws: RelationshipError.notAMember(other.id, relationship: "songs", object: playlist)) {
            try list.move(other.id, in: "songs", to: 0)
        }
        #expect(throws: RelationshipError.notOrdered(entity: "Song", relationship: "playlists")) {
            try other.insert(list.id, into: "playlists", at: 0)
        }
        #expect(throws: RelationshipError.wrongKind(entity: "Playlist", relationship: "songs", isToMany: true)) {
            try list.setTarget(other.id, of: "songs")
        }
        #expect(throws: RelationshipError.wrongDestination(entity: "Playlist", relationship: "songs", destination: "Song", target: playlist)) {
            try list.add(playlist, to: "songs")
        }
        // Each failure says what was asked and what the relationship allows.
        #expect(RelationshipError.indexOutOfRange(index: 5, upperBound: 1, relationship: "songs", object: playlist).description
            == "index 5 is out of range 0…1 for Playlist.songs of Playlist/mix")
        #expect(RelationshipError.notAMember(other.id, relationship: "songs", object: playlist).description
            == "Song/two is not in Playlist.songs of Playlist/mix")
        #expect(RelationshipError.wrongKind(entity: "Playlist", relationship: "songs", isToMany: true).description
            == "Playlist.songs is a to-many relationship, not a to-one one")
        #expect(RelationshipError.wrongDestination(entity: "Playlist", relationship: "songs", destination: "Song", target: playlist).description
            == "Playlist.songs holds Song, not Playlist (Playlist/mix)")
    }

    @Test func positionKeysAreDenseAndPeerDistinct() {
        var keys: [String] = []
        // Inserting again and again at one place never runs out of room.
        for _ in 0..<200 {
            let key = OrderKey.between(nil, keys.first, peer: "p")
            #expect(OrderKey.isValid(key))
            if let first = keys.first { #expect(Array(key.utf8).lexicographicallyPrecedes(Array(first.utf8))) }
            keys.insert(key, at: 0)
        }
        // Appending and prepending step by one digit: 3000 of each stay short.
        var last: String? = nil, first: String? = nil
        for _ in 0..<3_000 {
            let next = OrderKey.between(last, nil, peer: "p"), previous = OrderKey.between(nil, first, peer: "p")
            if let last { #expect(Array(last.utf8).lexicographicallyPrecedes(Array(next.utf8))) }
            if let first { #expect(Array(previous.utf8).lexicographicallyPrecedes(Array(first.utf8))) }
            (last, first) = (next, previous)
        }
        #expect((last?.count ?? 0) < 150 && (first?.count ?? 0) < 150, "\(last?.count ?? 0), \(first?.count ?? 0) digits")
        #expect(OrderKey.isValid(last ?? "") && OrderKey.isValid(first ?? ""))
        let x = OrderKey.between("V", "W", peer: "ann"), y = OrderKey.between("V", "W", peer: "bob")
        #expect(x != y, "two peers at one place make different keys")
        for key in [x, y] { #expect(key > "V" && key < "W") }
        #expect(!OrderKey.isValid("") && !OrderKey.isValid("a0") && !OrderKey.isValid("a-b"))
    }

    // MARK: Random concurrent edits

    static let seeds: [UInt64] = [1, 2, 3, 17, 2024] + (ProcessInfo.processInfo.environment["UBIQUITY_ORDER_SEED"].flatMap(UInt64.init).map { [$0] } ?? [])

    @Test(arguments: seeds) func randomConcurrentInsertsMovesAndRemovalsConverge(seed: UInt64) throws {
        var random = SeededGenerator(seed: seed)
        let cloud = try cloud()
        let peers = try (0..<3).map { try cloud.peer("p\($0)", policy: nil) }
        try insert(peers[0], [("s0", 0)])
        try syncAll(peers)
        var inserted: Set<String> = ["s0"], gone: Set<String> = []
        var next = 1
        for step in 0..<60 {
            let peer = peers[Int.random(in: 0..<peers.count, using: &random)]
            let context = peer.newContext()
            let list = try #require(try context.object(playlist))
            let members = try list.targets(of: "songs")
            switch Int.random(in: 0..<10, using: &random) {
            case 0..<4:
                let key = "s\(next)"
                next += 1
                let song = try context.insert("Song", key: key)
                song["title"] = .string(key)
                try list.insert(song.id, into: "songs", at: Int.random(in: 0...members.count, using: &random))
                inserted.insert(key)
            case 4..<7 where !members.isEmpty:
                try list.move(members.randomElement(using: &random)!, in: "songs", to: Int.random(in: 0..<members.count, using: &random))
            case 7 where !members.isEmpty:
                let member = members.randomElement(using: &random)!
                try list.remove(member, from: "songs")
                gone.insert(keys([member])[0])
            case 8 where !members.isEmpty:
                let member = members.randomElement(using: &random)!
                context.delete(try #require(try context.object(member)))
                gone.insert(keys([member])[0])
            default:
                _ = try peer.sync()
                continue
            }
            try context.save()
            if step % 7 == 0 { _ = try peers[Int.random(in: 0..<peers.count, using: &random)].sync() }
            // Baselines roll now and then (when the peer may): later joins carry positions too.
            if step % 13 == 0 { _ = try peers[Int.random(in: 0..<peers.count, using: &random)].rollBaseline(force: true) }
        }
        for _ in 0..<3 { for peer in peers { _ = try peer.sync() } }
        _ = try peers[0].rollBaseline(force: true)
        let newcomer = try cloud.peer("newcomer", policy: nil)
        _ = try newcomer.sync()
        #expect(try order(newcomer) == order(peers[0]), "seed \(seed): a newcomer reads the order from the baseline")
        let orders = try peers.map { try order($0) }
        #expect(Set(orders.map { $0.joined(separator: ",") }).count == 1, "seed \(seed): every peer holds one order: \(orders)")
        #expect(Set(orders[0]) == inserted.subtracting(gone), "seed \(seed): no insert lost, every removal held")
        let states = try peers.map { try $0.mergeStateText() }
        #expect(Set(states).count == 1, "seed \(seed): merge states are equal")
    }
}

@Suite("Logs of ordered relationships: read back, and refused when hostile")
struct OrderedLogTests {
    func log(positions: [String: [GlobalID: String]], entity: String = "Playlist", relationships: [String: RelationshipChange] = [:]) throws -> TransactionLog {
        let id = try GlobalID(entity: entity, key: "mix")
        return TransactionLog(peerID: "ann~1", transactionNumber: 1, knowledge: KnowledgeVector(["ann~1": 1]), stamp: Stamp(wallMilliseconds: 1_000, counter: 0, peerID: "ann~1"),
                              transactionDate: 1, modelVersionHash: OrderedRelationshipTests.model.hash, storeName: "Store", contentName: "Playlists",
                              inserted: [], updated: [ChangeRecord(id: id, relationships: relationships, positions: positions)], deleted: [])
    }

    @Test func positionsRoundTripAndAMoveCarriesNoMembership() throws {
        let song = try GlobalID(entity: "Song", key: "a")
        for original in [try log(positions: ["songs": [song: "V7Kz"]]),
                         try log(positions: ["songs": [song: "V7Kz"]], relationships: ["songs": .toMany(added: [song], removed: [])])] {
            let read = try TransactionLog(decoding: original.encoded(format: .binary), model: OrderedRelationshipTests.model)
            #expect(read == original)
        }
        #expect(try log(positions: ["songs": [song: "V7Kz"]]).text.contains("Playlist/mix songs@[Song/a:V7Kz]"))
    }

    @Test func hostilePositionsAreRefused() throws {
        let song = try GlobalID(entity: "Song", key: "a")
        let playlist = try GlobalID(entity: "Playlist", key: "mix")
        for (bad, reason) in [
            (try log(positions: ["songs": [song: "V0"]]), "invalid position key for Song/a in 'songs'"),
            (try log(positions: ["songs": [song: "a/b"]]), "invalid position key for Song/a in 'songs'"),
            (try log(positions: ["songs": [song: String(repeating: "V", count: OrderKey.maximumLength + 1)]]), "invalid position key for Song/a in 'songs'"),
            (try log(positions: ["songs": [playlist: "V"]]), "invalid member in the positions of 'songs'"),
            (try log(positions: ["playlists": [playlist: "V"]], entity: "Song"), "'playlists' is not ordered but carries positions"),
        ] {
            #expect { try TransactionLog(decoding: bad.encoded(format: .binary), model: OrderedRelationshipTests.model) } throws: { error in
                "\(error)".contains(reason)
            }
        }
    }
}
