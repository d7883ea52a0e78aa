import Foundation
import Testing
@testable import Ubiquity
@testable import UbiquityCore
import UbiquityTestSupport

/// Joining baselines is a join in the lattice sense: whatever baselines a store joins, in any
/// order, any number of times, before or after importing logs, it ends in exactly the state of a
/// store that imported every log — the same objects, values, stamps, pairs and tombstones. This
/// is what lets a peer read every baseline it sees (conflict copies included) without caring
/// which one a file-sync engine kept under the name.
@Suite("Baselines join like logs apply")
struct BaselineJoinTests {
    @Test(arguments: SeededGenerator.testSeeds([1, 2, 3]))
    func anyBaselinesInAnyOrderGiveTheStateOfEveryLog(seed: UInt64) throws {
        let cloud = try TestCloud(model: RandomNotesWorkload.model, contentName: "Random")
        let peers = try cloud.peers(4).map { peer -> UbiquityPeer in peer }
        var workload = RandomNotesWorkload(seed: seed)
        // States captured along the way, from different peers at different knowledge: concurrent
        // ones among them, as two machines roll baselines before seeing each other's.
        var states: [(path: String, knowledge: KnowledgeVector)] = []
        for step in 0..<300 {
            _ = try workload.step(on: workload.pick(peers)!)
            if step % 25 == 24 {
                let peer = workload.pick(peers)!
                let path = cloud.root + "/state-\(states.count).sqlite"
                states.append((path, try peer.store.writeStateFile(to: path)))
            }
        }
        for _ in 0..<4 { for peer in peers { _ = try peer.sync() } }
        let reference = try peers[0].mergeStateText()
        #expect(try Set(peers.map { try $0.mergeStateText() }).count == 1, "seed \(seed): the writers converged")

        for trial in 0..<6 {
            let joiner = try cloud.peer("joiner\(trial)", policy: nil)
            var chosen = states.shuffled(using: &workload.random).prefix(Int.random(in: 1...states.count, using: &workload.random))
            if trial % 3 == 2, let again = chosen.first { chosen.append(again) }   // a baseline joined twice
            let importFirst = trial % 2 == 1
            if importFirst { _ = try joiner.sync() }
            for state in chosen {
                let before = joiner.store.knowledge
                _ = try joiner.store.joinStateFile(at: state.path, knowledge: state.knowledge)
                var expected = before
                expected.formMaximum(state.knowledge)
                #expect(joiner.store.knowledge == expected, "seed \(seed) trial \(trial): knowledge is the maximum of both")
            }
            _ = try joiner.sync()
            #expect(try joiner.mergeStateText() == reference,
                    "seed \(seed) trial \(trial): \(chosen.count) baseline(s) joined \(importFirst ? "after" : "before") importing the logs")
        }
    }

    /// One row of a state file changed as no honest peer writes it, and the reason the join
    /// gives; the last case is a value that passes, to show the file was sound before.
    static let badRows: [(change: String, reason: String?)] = [
        ("a_title = x'0102'", "holds a value of the wrong type in title (string expected)"),
        ("a_zip = 'ninety'", "holds a value of the wrong type in zip (integer expected)"),
        ("a_zip = 1.5", "holds a value of the wrong type in zip (integer expected)"),
        ("a_zip = 9e999", "holds a number that is not finite in zip"),
        ("a_pinned = 'yes'", "holds a value of the wrong type in pinned (boolean expected)"),
        ("w_title = 987654", "names a writer the file does not hold"),
        ("alive = 2", "is neither alive nor dead"),
        ("a_title = 'fine', a_zip = 12345, a_pinned = 1", nil),
    ]

    @Test("a state file with a bad value or writer is refused with its reason, nothing of it applied",
          arguments: badRows.indices)
    func aBadRowIsRefusedWithItsReason(index: Int) throws {
        let (change, reason) = Self.badRows[index]
        let cloud = try TestCloud(model: RandomNotesWorkload.model, contentName: "Random")
        let writer = try cloud.peer("writer", policy: nil)
        let context = writer.newContext()
        for key in 0..<5 {
            let note = try context.insert("Note", key: "n\(key)")
            note["title"] = .string("note \(key)")
            note["zip"] = .integer(Int64(key))
        }
        try context.save()
        let path = cloud.root + "/state.sqlite"
        let knowledge = try writer.store.writeStateFile(to: path)
        do {
            let database = try SQLiteDatabase(path: path)
            try database.execute("UPDATE E_Note SET \(change) WHERE gid = (SELECT min(gid) FROM E_Note)")
        }

        let joiner = try cloud.peer("joiner", policy: nil)
        if let reason {
            #expect {
                _ = try joiner.store.joinStateFile(at: path, knowledge: knowledge)
            } throws: { error in
                "\(error)".hasPrefix("the baseline's ") && "\(error)".hasSuffix(reason)
            }
            let notes = try joiner.store.count(FetchRequest(entity: "Note"))
            #expect(joiner.store.knowledge.entries.isEmpty && notes == 0, "\(change): nothing applied")
        } else {
            _ = try joiner.store.joinStateFile(at: path, knowledge: knowledge)
            #expect(try joiner.store.count(FetchRequest(entity: "Note")) == 5)
        }
    }
}
