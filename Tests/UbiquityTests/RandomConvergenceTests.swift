import Foundation
import Testing
@testable import Ubiquity
import UbiquityTestSupport

/// Five peers, hundreds of random operations and random sync order; then every peer must hold
/// the same merge state, and that state must be exactly what the logs say (an oracle computed
/// from every saved log): so no saved edit is lost and no deleted object comes back unasked.
@Suite("Seeded random operations converge")
struct RandomConvergenceTests {
    @Test(arguments: SeededGenerator.testSeeds([1, 2]))
    func randomOperationsOnFivePeersConverge(seed: UInt64) throws {
        let cloud = try TestCloud(model: RandomNotesWorkload.model, contentName: "Random")
        let peers = try cloud.peers(5)
        var logs: [TransactionLog] = []

        var workload = RandomNotesWorkload(seed: seed)
        for _ in 0..<500 {
            if let log = try workload.step(on: workload.pick(peers)!) { logs.append(log) }
        }

        // Quiescence: sync until a whole round applies nothing.
        var rounds = 0
        while rounds < 10 {
            rounds += 1
            var applied = 0
            for peer in peers { applied += try peer.sync().imported.applied.count }
            if applied == 0 { break }
        }
        let states = try peers.map { try $0.mergeStateText() }
        #expect(Set(states).count == 1, "seed \(seed): peers differ after \(rounds) sync rounds")
        for peer in peers { #expect(peer.store.knowledge.entries.count == Set(logs.map(\.peerID)).count, "seed \(seed)") }
        try checkAgainstOracle(peers[0].store, logs: logs, seed: seed)
    }

    /// Computes, from the logs alone, which objects live and every value they must hold, and
    /// compares with the store.
    func checkAgainstOracle(_ store: PersistentStore, logs: [TransactionLog], seed: UInt64) throws {
        struct Write { let stamp: Stamp; let value: AttributeValue? }
        var inserts: [GlobalID: [KnowledgeVector]] = [:]
        var deletes: [GlobalID: [(String, Int64)]] = [:]
        var attributes: [GlobalID: [String: Write]] = [:]
        var toOnes: [GlobalID: [String: (Stamp, GlobalID?)]] = [:]
        var pairs: [String: (Stamp, Bool)] = [:]   // "source|target" of Note.tags
        for log in logs {
            for (isInsert, record) in log.inserted.map({ (true, $0) }) + log.updated.map({ (false, $0) }) {
                if isInsert { inserts[record.id, default: []].append(log.knowledge) }
                for (name, value) in record.values where (attributes[record.id]?[name]?.stamp ?? log.stamp) <= log.stamp {
                    attributes[record.id, default: [:]][name] = Write(stamp: log.stamp, value: value)
                }
                for (name, change) in record.relationships {
                    switch change {
                    case let .toOne(target):
                        if (toOnes[record.id]?[name]?.0 ?? log.stamp) <= log.stamp { toOnes[record.id, default: [:]][name] = (log.stamp, target) }
                    case let .toMany(added, removed):
                        let noteSide = record.id.entity == "Note"
                        for (targets, present) in [(added, true), (removed, false)] {
                            for target in targets {
                                let key = noteSide ? "\(record.id)|\(target)" : "\(target)|\(record.id)"
                                if (pairs[key]?.0 ?? log.stamp) <= log.stamp { pairs[key] = (log.stamp, present) }
                            }
                        }
                    }
                }
            }
            for id in log.deleted { deletes[id, default: []].append((log.peerID, log.transactionNumber)) }
        }
        func alive(_ id: GlobalID) -> Bool {
            (inserts[id] ?? []).contains { kv in (deletes[id] ?? []).allSatisfy { kv.covers(peer: $0.0, number: $0.1) } }
        }
        let expectedAlive = Set(inserts.keys.filter(alive))
        var actualAlive: Set<GlobalID> = []
        for entity in ["Folder", "Note", "Tag"] { for snapshot in try store.fetch(FetchRequest(entity: entity)) { actualAlive.insert(snapshot.id) } }
        #expect(actualAlive == expectedAlive, "seed \(seed): live objects differ from what the logs say")

        for id in expectedAlive.sorted() {
            guard let snapshot = try store.snapshot(of: id) else { continue }
            for (name, write) in attributes[id] ?? [:] {
                #expect(snapshot.values[name] == .some(write.value), "seed \(seed): \(id).\(name) should be the write with the largest stamp")
            }
            for (name, (_, target)) in toOnes[id] ?? [:] {
                let expected = target.flatMap { alive($0) ? $0 : nil }
                #expect(snapshot.toOne[name] == .some(expected), "seed \(seed): \(id).\(name)")
            }
            if id.entity == "Note" {
                let expectedTags = pairs.filter { $0.key.hasPrefix("\(id)|") && $0.value.1 }
                    .compactMap { try? GlobalID(String($0.key.split(separator: "|")[1])) }.filter(alive).sorted()
                #expect(try store.targets(of: "tags", of: id) == expectedTags, "seed \(seed): \(id).tags")
            }
        }
    }
}
