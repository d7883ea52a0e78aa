import Foundation
import Testing
@testable import Ubiquity
import UbiquityTestSupport

/// Uniqueness constraints kept as Core Data keeps them at save, and across devices: objects
/// inserted concurrently with equal constrained values become one object, the same one on
/// every peer whatever order the logs arrive in, with the losers in the conflict history and
/// the references to them moved to the winner.
@Suite("Uniqueness constraints at save and across devices")
struct UniquenessConstraintTests {
    /// People unique by email (over employees too), teams with a lead and an ordered roster, tags many-to-many.
    static let model: ObjectModel = {
        var person = EntityDescription("Person", attributes: [
            AttributeDescription("email", .string),
            AttributeDescription("name", .string),
            AttributeDescription("age", .integer32),
        ], relationships: [
            RelationshipDescription("tags", destination: "Tag", inverse: "people", toMany: true),
        ])
        person.uniquenessConstraints = [["email"]]
        return try! ObjectModel(name: "People", entities: [
            person,
            EntityDescription("Employee", attributes: [AttributeDescription("badge", .string)], parent: "Person"),
            EntityDescription("Team", attributes: [AttributeDescription("name", .string)], relationships: [
                RelationshipDescription("lead", destination: "Person"),
                RelationshipDescription("roster", destination: "Person", toMany: true, ordered: true),
            ]),
            EntityDescription("Tag", attributes: [AttributeDescription("label", .string)], relationships: [
                RelationshipDescription("people", destination: "Person", inverse: "tags", toMany: true),
            ]),
        ])
    }()

    static let email = UniquenessConstraint(scope: "Person", properties: ["email"])

    func people(_ peer: UbiquityPeer, email: String) throws -> [ObjectSnapshot] {
        try peer.store.fetch(FetchRequest(entity: "Person")).filter { $0.values["email"] == .some(.string(email)) }
    }

    // MARK: Local saves

    @Test func aDuplicateInsertIsMergedIntoTheExistingObjectByTheMergePolicy() throws {
        let cloud = try TestCloud(model: Self.model, contentName: "People")
        let peer = try cloud.peer("a")
        let first = peer.newContext()
        let ada = try first.insert("Person")
        try ada.set("email", "ada@example.com")
        try ada.set("name", "Ada")
        try first.save()

        let objectTrump = peer.newContext()
        objectTrump.mergePolicy = .propertyObjectTrump
        let again = try objectTrump.insert("Person")
        try again.set("email", "ada@example.com")
        try again.set("name", "Ada Lovelace")
        try again.set("age", 36)
        try objectTrump.save()
        var found = try people(peer, email: "ada@example.com")
        #expect(found.map(\.id) == [ada.id], "one object, the one that held the email")
        #expect(found.first?.values["name"] == .some(.string("Ada Lovelace")) && found.first?.values["age"] == .some(.integer(36)))
        #expect(objectTrump.resolvedConflicts.map(\.kind) == [.uniqueness])

        let storeTrump = peer.newContext()
        storeTrump.mergePolicy = .propertyStoreTrump
        let third = try storeTrump.insert("Employee")
        try third.set("email", "ada@example.com")
        try third.set("name", "A. L.")
        try storeTrump.save()
        found = try people(peer, email: "ada@example.com")
        #expect(found.map(\.id) == [ada.id], "the constraint of Person holds over Employee")
        #expect(found.first?.values["name"] == .some(.string("Ada Lovelace")), "the store's value stays")
    }

    @Test func aDuplicateInsertUnderTheErrorPolicyThrowsNamingTheConstraintAndValues() throws {
        let cloud = try TestCloud(model: Self.model, contentName: "People")
        let peer = try cloud.peer("a")
        let first = peer.newContext()
        let ada = try first.insert("Person")
        try ada.set("email", "ada@example.com")
        try first.save()

        let second = peer.newContext()
        let again = try second.insert("Employee")
        try again.set("email", "ada@example.com")
        #expect(throws: UniquenessConstraintError.insertCollides(object: again.id, existing: ada.id, constraint: Self.email,
                                                                  values: [.attribute(.string("ada@example.com"))])) { try second.save() }
        #expect(try people(peer, email: "ada@example.com").map(\.id) == [ada.id], "nothing was saved")

        // An update that makes two objects share the value is refused whatever the policy.
        let third = peer.newContext()
        third.mergePolicy = .propertyObjectTrump
        let grace = try third.insert("Person")
        try grace.set("email", "grace@example.com")
        try third.save()
        let changed = try #require(try third.object(grace.id))
        try changed.set("email", "ada@example.com")
        #expect(throws: UniquenessConstraintError.updateCollides(object: grace.id, existing: ada.id, constraint: Self.email,
                                                                  values: [.attribute(.string("ada@example.com"))])) { try third.save() }
    }

    @Test func aRelationshipToTheMergedNewObjectPointsAtTheExistingOne() throws {
        let cloud = try TestCloud(model: Self.model, contentName: "People")
        let peer = try cloud.peer("a")
        let first = peer.newContext()
        let ada = try first.insert("Person")
        try ada.set("email", "ada@example.com")
        try first.save()

        let second = peer.newContext()
        second.mergePolicy = .propertyObjectTrump
        let again = try second.insert("Person")
        try again.set("email", "ada@example.com")
        let team = try second.insert("Team")
        try team.setTarget(again.id, of: "lead")
        let tag = try second.insert("Tag")
        try tag.add(again.id, to: "people")
        try second.save()
        #expect(try peer.store.snapshot(of: team.id)?.toOne["lead"] == .some(ada.id))
        #expect(try peer.store.targets(of: "people", of: tag.id) == [ada.id])
    }

    // MARK: Across devices

    /// Four peers, each inserting `x@example.com` and `y@example.com` with its own names and
    /// ages, a team led by its own `x` and a tag on it; each peer's clock a second ahead of the
    /// previous one's, so the stamps (and so the slot winners) are the same in every run.
    final class Scene {
        let cloud: TestCloud
        private(set) var peers: [UbiquityPeer]
        /// `people[peer][email]`: the object each peer inserted.
        let people: [[String: GlobalID]]
        let teams: [GlobalID]

        init(cloud: TestCloud, peers: [UbiquityPeer], people: [[String: GlobalID]], teams: [GlobalID]) {
            (self.cloud, self.peers, self.people, self.teams) = (cloud, peers, people, teams)
        }

        // The peers go before their cloud.
        deinit { peers.removeAll() }
    }

    func scene() throws -> Scene {
        let cloud = try TestCloud(model: Self.model, contentName: "People")
        var peers: [UbiquityPeer] = [], people: [[String: GlobalID]] = [], teams: [GlobalID] = []
        for index in 0..<4 {
            let peer = try cloud.peer("peer\(index)", clock: WallClock.system.skewed(by: Double(index)))
            let context = peer.newContext()
            var mine: [String: GlobalID] = [:]
            for email in ["x@example.com", "y@example.com"] {
                // Natural keys, so the winner (the lowest global ID) is the same in every run.
                let person = try context.insert("Person", key: "\(email.prefix(1))\(index)")
                try person.set("email", email)
                try person.set("name", "\(email.prefix(1)) of peer \(index)")
                try person.set("age", 20 + index)
                mine[email] = person.id
            }
            let team = try context.insert("Team", key: "team\(index)")
            try team.setTarget(mine["x@example.com"], of: "lead")
            try team.add(mine["x@example.com"]!, to: "roster")
            try team.add(mine["y@example.com"]!, to: "roster")
            let tag = try context.insert("Tag", key: "tag\(index)")
            try tag.add(mine["x@example.com"]!, to: "people")
            try context.save()
            peers.append(peer)
            people.append(mine)
            teams.append(team.id)
        }
        return Scene(cloud: cloud, peers: peers, people: people, teams: teams)
    }

    /// Each peer syncs in `order` (so each sees the logs of the ones before it), then all sync
    /// until every log has reached every peer.
    func run(_ scene: Scene, order: [Int]) throws {
        for index in order { _ = try scene.peers[index].sync() }
        for _ in 0..<2 { for peer in scene.peers { _ = try peer.sync() } }
    }

    @Test func concurrentInsertsOfOneValueConvergeOnOneObjectWithTheLosersRecorded() throws {
        let scene = try scene()
        try run(scene, order: [0, 1, 2, 3])
        let dump = try scene.peers[0].dumpText(), state = try scene.peers[0].mergeStateText()
        for peer in scene.peers {
            #expect(try peer.dumpText() == dump, "every peer holds the same objects")
            #expect(try peer.mergeStateText() == state, "and the same merge state: rows, slot stamps, pairs, tombstones")
            for email in ["x@example.com", "y@example.com"] {
                let winner = scene.people[0][email]!
                let found = try people(peer, email: email)
                #expect(found.map(\.id) == [winner], "one \(email), the lowest global ID")
                // Every slot was written by all four inserts: peer 3's stamp is the largest.
                #expect(found.first?.values["name"] == .some(.string("\(email.prefix(1)) of peer 3")))
                #expect(found.first?.values["age"] == .some(.integer(23)))
                let losers = Set(scene.people.dropFirst().map { $0[email]! })
                let recorded = Set(try peer.store.conflicts().filter { $0.kind == .uniqueness }.map(\.object))
                #expect(losers.isSubset(of: recorded), "the losers are in the conflict history")
                // Every name written is the winner's or in the history: none silently lost.
                var names: Set<String> = []
                for record in try peer.store.conflicts() where record.property == "name" {
                    for case let .attribute(.string(name)?) in [record.winnerValue, record.loserValue] { names.insert(name) }
                }
                if case let .string(name)?? = found.first?.values["name"] { names.insert(name) }
                #expect((0..<4).allSatisfy { names.contains("\(email.prefix(1)) of peer \($0)") }, "\(names.sorted())")
            }
        }
    }

    @Test func relationshipsToALoserPointAtTheWinner() throws {
        let scene = try scene()
        try run(scene, order: [3, 2, 1, 0])
        let winner = scene.people[0]["x@example.com"]!
        for peer in scene.peers {
            for team in scene.teams {
                #expect(try peer.store.snapshot(of: team)?.toOne["lead"] == .some(winner), "\(team) is led by the winner")
                #expect(try peer.store.targets(of: "roster", of: team) == [winner, scene.people[0]["y@example.com"]!],
                        "\(team)'s roster holds the winners, in the order it placed its own")
            }
            for index in 0..<4 {
                #expect(try peer.store.targets(of: "people", of: try GlobalID("Tag/tag\(index)")) == [winner])
            }
            #expect(try peer.store.targets(of: "tags", of: winner).count == 4)
        }
    }

    @Test func everyImportOrderGivesTheSameObjects() throws {
        let orders = [[0, 1, 2, 3], [3, 2, 1, 0], [1, 3, 0, 2], [2, 0, 3, 1], [3, 0, 2, 1], [1, 2, 3, 0]]
        var dumps: [String] = []
        for order in orders {
            let scene = try scene()
            try run(scene, order: order)
            let dump = try scene.peers[0].dumpText(), state = try scene.peers[0].mergeStateText()
            for peer in scene.peers {
                #expect(try peer.dumpText() == dump, "order \(order): every peer alike")
                #expect(try peer.mergeStateText() == state, "order \(order): the same merge state")
                for email in ["x@example.com", "y@example.com"] {
                    #expect(try people(peer, email: email).map(\.id) == [scene.people[0][email]!], "order \(order): one \(email)")
                }
            }
            dumps.append(dump)
        }
        #expect(Set(dumps).count == 1, "every order ends with the same objects")
    }

    @Test func aLosersValueRestoredGoesToTheWinner() throws {
        let scene = try scene()
        try run(scene, order: [2, 0, 3, 1])
        let winner = scene.people[0]["x@example.com"]!, loser = scene.people[1]["x@example.com"]!
        let peer = scene.peers[2]
        #expect(try peer.store.snapshot(of: winner)?.values["age"] == .some(.integer(23)))
        // Peer 1's age lost, as the loser's own value or overwritten in it by another loser's.
        let record = try #require(try peer.store.conflicts().first {
            [loser, winner].contains($0.object) && $0.property == "age" && $0.loserValue == .attribute(.integer(21))
        })
        try peer.restoreLoser(ofConflict: record.id)
        for _ in 0..<2 { for peer in scene.peers { _ = try peer.sync() } }
        for peer in scene.peers { #expect(try peer.store.snapshot(of: winner)?.values["age"] == .some(.integer(21))) }
    }

    /// A baseline carries the merges: a newcomer that joins one, and a peer that joins one over
    /// an unsent insert of the same value, end as the peers that imported every log.
    @Test func aBaselineCarriesTheMergesToANewcomerAndToAPeerWithADuplicate() throws {
        let scene = try scene()
        _ = try scene.peers[0].sync()
        _ = try scene.peers[1].sync()
        let path = scene.cloud.root + "/state.sqlite"
        let knowledge = try scene.peers[1].store.writeStateFile(to: path)
        let newcomer = try scene.cloud.peer("newcomer", policy: nil)
        defer { newcomer.close() }
        _ = try newcomer.store.joinStateFile(at: path, knowledge: knowledge)
        // Peer 2 holds its own x and y, sent nowhere yet: the join meets them.
        _ = try scene.peers[2].store.joinStateFile(at: path, knowledge: knowledge)
        try run(scene, order: [0, 1, 2, 3])
        _ = try newcomer.sync()
        let state = try scene.peers[0].mergeStateText()
        #expect(try people(scene.peers[0], email: "x@example.com").map(\.id) == [scene.people[0]["x@example.com"]!])
        #expect(try newcomer.mergeStateText() == state, "the newcomer")
        #expect(try scene.peers[2].mergeStateText() == state, "the peer with the duplicate")
    }

    /// A loser this store joined away stays joined when a second baseline, from a peer that
    /// never saw the winner, holds the loser alive: the row it brings goes to the winner too.
    @Test func aSecondBaselineHoldingAJoinedLoserDoesNotBringItBack() throws {
        let cloud = try TestCloud(model: Self.model, contentName: "People")
        func insertX(_ peer: UbiquityPeer, key: String) throws -> GlobalID {
            let context = peer.newContext()
            let person = try context.insert("Person", key: key)
            try person.set("email", "x@example.com")
            try person.set("name", "x of \(key)")
            try context.save()
            return person.id
        }
        let author = try cloud.peer("author"), reader = try cloud.peer("reader")
        defer { author.close(); reader.close() }
        let loser = try insertX(author, key: "x9")
        _ = try reader.sync()
        // Two baselines from peers that saw the loser alone, as a container holds after a conflict of baselines.
        let first = cloud.root + "/first.sqlite", second = cloud.root + "/second.sqlite"
        let firstKnowledge = try author.store.writeStateFile(to: first)
        let secondKnowledge = try reader.store.writeStateFile(to: second)
        let holder = try cloud.peer("holder")
        defer { holder.close() }
        let winner = try insertX(holder, key: "x0")
        _ = try holder.store.joinStateFile(at: first, knowledge: firstKnowledge)
        #expect(try people(holder, email: "x@example.com").map(\.id) == [winner], "the first join merges \(loser) into the winner")
        _ = try holder.store.joinStateFile(at: second, knowledge: secondKnowledge)
        #expect(try people(holder, email: "x@example.com").map(\.id) == [winner], "the second join does not bring \(loser) back")
        let peers = [author, reader, holder]
        for _ in 0..<2 { for peer in peers { _ = try peer.sync() } }
        let state = try holder.mergeStateText()
        for peer in peers {
            #expect(try people(peer, email: "x@example.com").map(\.id) == [winner])
            #expect(try peer.mergeStateText() == state, "every peer holds the same merge state")
        }
    }

    /// An insert without the constrained values still counts when the group's liveness is
    /// settled: a peer that deleted an object and inserted it again without an email keeps it,
    /// and so does every peer, when a concurrent insert with the old email joins it.
    @Test func aReinsertWithoutTheConstrainedValuesKeepsItsGroupAlive() throws {
        let cloud = try TestCloud(model: Self.model, contentName: "People")
        let author = try cloud.peer("author"), other = try cloud.peer("other")
        defer { author.close(); other.close() }
        let context = author.newContext()
        let first = try context.insert("Person", key: "p")
        try first.set("email", "ada@example.com")
        try context.save()
        context.delete(first)
        try context.save()
        let again = try context.insert("Person", key: "p")
        try again.set("name", "Ada, again")
        try context.save()
        // Saved before the other peer saw any of the author's logs: it collides with the first insert.
        let concurrent = other.newContext()
        try concurrent.insert("Person", key: "q").set("email", "ada@example.com")
        try concurrent.save()
        for _ in 0..<2 { for peer in [author, other] { _ = try peer.sync() } }
        for peer in [author, other] {
            #expect(try peer.store.snapshot(of: again.id) != nil, "the reinserted object is alive on \(peer.peerID)")
            #expect(try people(peer, email: "ada@example.com").count <= 1)
        }
        #expect(try author.mergeStateText() == other.mergeStateText(), "both peers hold the same merge state")
    }

    /// A bulk save (what a store carries into a content that won a concurrent removal is saved
    /// again in one transaction) may hold two objects whose values became equal after their
    /// inserts: they are one object on the author and on every peer that imports the log.
    @Test func twoInsertsOfOneTransactionWithEqualValuesAreOneObject() throws {
        let cloud = try TestCloud(model: Self.model, contentName: "People")
        let author = try cloud.peer("author"), reader = try cloud.peer("reader")
        defer { author.close(); reader.close() }
        let records = try ["Person/b", "Person/a"].map { ChangeRecord(id: try GlobalID($0), values: ["email": .string("ada@example.com"), "name": .string($0)]) }
        _ = try #require(try author.store.commitLocal(inserted: records, updated: [], deleted: []))
        _ = try author.sync()
        _ = try reader.sync()
        for peer in [author, reader] {
            #expect(try people(peer, email: "ada@example.com").map(\.id) == [try GlobalID("Person/a")], "one object, the lowest ID")
            #expect(try peer.store.conflicts().contains { $0.kind == .uniqueness && $0.object == (try? GlobalID("Person/b")) }, "the loser recorded")
        }
        #expect(try author.mergeStateText() == reader.mergeStateText())
    }

    /// A model version that renames the constrained entity keeps the merges: what was known of
    /// `Person` is known of `Member`, and a later concurrent insert of the value still merges.
    @Test func aRenamedEntityKeepsItsMerges() throws {
        func version(_ name: String, renamedFrom: String?) -> ObjectModel {
            var entity = EntityDescription(name, attributes: [AttributeDescription("email", .string), AttributeDescription("name", .string)],
                                           renamingIdentifier: renamedFrom)
            entity.uniquenessConstraints = [["email"]]
            return try! ObjectModel(name: "Club", entities: [entity])
        }
        let v1 = version("Person", renamedFrom: nil), v2 = version("Member", renamedFrom: "Person")
        let cloud = try TestCloud(model: v1, contentName: "Club")
        var a = try cloud.peer("a")
        let b = try cloud.peer("b")
        for (peer, key) in [(a, "x0"), (b, "x1")] {
            let context = peer.newContext()
            try context.insert("Person", key: key).set("email", "x@example.com")
            try context.save()
        }
        for peer in [a, b, a] { _ = try peer.sync() }
        b.close()
        a.close()
        var configuration = cloud.configuration("a")
        configuration.model = v2
        a = try UbiquityPeer(configuration: configuration)
        _ = try Device.create(at: cloud.devicePath("c"), userName: "c", identityToken: Device.defaultAccount)
        configuration = cloud.configuration("c")
        configuration.model = v2
        let c = try UbiquityPeer(configuration: configuration)
        let context = c.newContext()
        try context.insert("Member", key: "x2").set("email", "x@example.com")
        try context.save()
        for peer in [c, a, c, a] { _ = try peer.sync() }
        for peer in [a, c] {
            let members = try peer.store.fetch(FetchRequest(entity: "Member"))
            #expect(members.map(\.id) == [try GlobalID("Member/x0")], "\(peer.peerID.prefix(4)): one member")
        }
        #expect(try a.dumpText() == c.dumpText())
    }
}
