import Foundation
import Testing
@testable import Ubiquity
@testable import UbiquityCore
import UbiquityBase
import UbiquityPlist
import UbiquityTestSupport

/// A constraint that names a to-one (a plant unique by name and bed) compares the bed by the
/// object it became: when four devices each insert the bed "north" and a rose in it, the beds
/// are one bed and the roses one rose on every device, whichever bed's insert a peer met first.
@Suite("Uniqueness constraints through a constrained to-one")
struct UniquenessThroughToOneTests {
    /// Beds unique by label; plants unique by (name, bed).
    static let model: ObjectModel = {
        var bed = EntityDescription("Bed", attributes: [AttributeDescription("label", .string)], relationships: [
            RelationshipDescription("plants", destination: "Plant", inverse: "bed", toMany: true),
        ])
        bed.uniquenessConstraints = [["label"]]
        var plant = EntityDescription("Plant", attributes: [
            AttributeDescription("name", .string), AttributeDescription("height", .integer32),
        ], relationships: [
            RelationshipDescription("bed", destination: "Bed", inverse: "plants"),
        ])
        plant.uniquenessConstraints = [["name", "bed"]]
        return try! ObjectModel(name: "Garden", entities: [bed, plant])
    }()

    /// Each peer saves the bed `label` with a plant `name` of height `height + index`.
    func plantEverywhere(_ peers: [UbiquityPeer], label: String, name: String, height: Int) throws {
        for (index, peer) in peers.enumerated() {
            let context = peer.newContext()
            let bed = try context.insert("Bed")
            try bed.set("label", label)
            let plant = try context.insert("Plant")
            try plant.set("name", name)
            try plant.set("height", height + index)
            try plant.setTarget(bed.id, of: "bed")
            try context.save()
        }
    }

    func live(_ entity: String, in peer: UbiquityPeer) throws -> [ObjectSnapshot] {
        try peer.store.fetch(FetchRequest(entity: entity))
    }

    /// Peers meet in pairs first (0 with 3, 1 with 2: each pair's beds merge before the other
    /// pair's arrive), then all together; the order each peer met the beds differs.
    @Test(arguments: [[0, 3, 1, 2], [3, 2, 1, 0], [1, 0, 2, 3]])
    func concurrentBedsAndPlantsEndAsOneOfEach(order: [Int]) throws {
        let cloud = try TestCloud(model: Self.model, contentName: "Garden")
        let peers = try cloud.peers(4)
        try plantEverywhere(peers, label: "north", name: "rose", height: 10)
        for pair in [(order[0], order[1]), (order[2], order[3])] {
            _ = try peers[pair.0].sync()
            _ = try peers[pair.1].sync()
            _ = try peers[pair.0].sync()
        }
        for _ in 0..<2 { for index in order { _ = try peers[index].sync() } }

        let state = try peers[0].mergeStateText(), dump = try peers[0].dumpText()
        for peer in peers {
            let beds = try live("Bed", in: peer), plants = try live("Plant", in: peer)
            #expect(beds.count == 1, "one bed: \(beds.map(\.id))")
            #expect(plants.count == 1, "one rose: \(plants.map(\.id))")
            #expect(plants.first?.toOne["bed"] == .some(beds.first?.id), "the rose is in the bed that stayed")
            #expect(try peer.mergeStateText() == state && peer.dumpText() == dump, "one state on every peer")
        }
        // Three roses and three beds lost; each is in the conflict history with its height.
        let losers = try peers[0].store.conflicts().filter { $0.kind == .uniqueness && $0.property == "height" }
        #expect(Set(losers.map(\.object)).count == 3, "\(losers)")
    }

    /// Seeded random saves over a few labels and names, with syncs at random: every peer ends
    /// with one bed per label and one plant per (name, bed), in one state.
    @Test(arguments: SeededGenerator.testSeeds([1, 2, 3, 4]))
    func randomGardensConverge(seed: UInt64) throws {
        let cloud = try TestCloud(model: Self.model, contentName: "Garden")
        let peers = try cloud.peers(4)
        var random = SeededGenerator(seed: seed)
        for _ in 0..<60 {
            let peer = peers[Int.random(in: 0..<peers.count, using: &random)]
            if Int.random(in: 0..<4, using: &random) == 0 { _ = try peer.sync(); continue }
            let context = peer.newContext()
            context.mergePolicy = .propertyObjectTrump
            let label = "bed\(Int.random(in: 0..<2, using: &random))"
            let bed = try context.fetch(FetchRequest(entity: "Bed")).first { $0["label"] == .string(label) }
            let bedID = try bed?.id ?? {
                let inserted = try context.insert("Bed")
                try inserted.set("label", label)
                return inserted.id
            }()
            let plant = try context.insert("Plant")
            try plant.set("name", "p\(Int.random(in: 0..<2, using: &random))")
            try plant.set("height", Int.random(in: 0..<100, using: &random))
            try plant.setTarget(bedID, of: "bed")
            try context.save()
        }
        for _ in 0..<3 { for peer in peers { _ = try peer.sync() } }
        let state = try peers[0].mergeStateText()
        for peer in peers {
            #expect(try peer.mergeStateText() == state, "seed \(seed): one merge state")
            let beds = try live("Bed", in: peer).map { $0.values["label"] ?? nil }
            #expect(Set(beds).count == beds.count, "seed \(seed): one bed per label, found \(beds)")
            let plants = try live("Plant", in: peer).map { "\(String(describing: $0.values["name"] ?? nil))/\(String(describing: $0.toOne["bed"] ?? nil))" }
            #expect(Set(plants).count == plants.count, "seed \(seed): one plant per name and bed, found \(plants.sorted())")
        }
    }

    /// Only the to-one's place in a key is rewritten: a name that spells the loser's ID stays.
    @Test func aKeyIsRewrittenAtTheReferenceOnly() throws {
        func key(_ items: [PlistValue]) -> [UInt8] {
            var bytes: [UInt8] = []
            CanonicalEncoding.append(.array(items), to: &bytes)
            return bytes
        }
        let loser = "x-Bed/d2-Bed-1", winner = "x-Bed/d1-Bed-0"
        let needle = key([.string(loser)]).dropFirst(9), replacement = key([.string(winner)]).dropFirst(9)
        let noted = key([.string(loser), .string(loser)])
        #expect(MergeEngine.key(noted, replacing: Array(needle), with: Array(replacement), at: [1]) == key([.string(loser), .string(winner)]))
        #expect(MergeEngine.key(key([.string(loser), .string("elsewhere")]), replacing: Array(needle), with: Array(replacement), at: [1]) == nil)
        #expect(CanonicalEncoding.scalarElements(ofArray: Array(noted.dropLast())) == nil, "a cut key is not rewritten")
        #expect(CanonicalEncoding.scalarElements(ofArray: key([.integer(3), .boolean(true), .null, .data([1, 2])]))?.count == 4)
    }
}
