import Foundation
import Synchronization
import Testing
@testable import Ubiquity
import UbiquityTestSupport

/// What made iOS 5/6 accounts unusable: many peers coming and going, rebuilding, editing.
/// Under churn the container must stay bounded and everyone must converge.
@Suite("Churn")
struct ChurnTests {
    /// Log files may never exceed this many in the container during the loop. With Apple's
    /// threshold of 100 transactions per baseline, a peer that has passed a baseline deletes
    /// its covered logs at its next sync; logs held back for a peer that is away are released
    /// by the grace period. So the live logs are about one baseline interval plus what the
    /// peers away still hold (a peer that quit cannot collect its own logs until it returns):
    /// measured peaks 300–350 over seeds, bound 5 × the threshold.
    static let logBound = 500
    /// Simulated time per step of the loop. The grace period is counted in it, not in the
    /// machine's seconds: a faster build made the peers' 2 s of grace pass in fewer steps'
    /// worth of saves on a slow machine than on a fast one, so the peak depended on the speed.
    static let secondsPerStep = 0.01

    @Test(arguments: SeededGenerator.testSeeds([7]))
    func fivePeersChurningThroughFiveThousandSavesStayBoundedAndConverge(seed: UInt64) throws {
        var random = SeededGenerator(seed: seed)
        let cloud = try TestCloud()
        let policy = BaselinePolicy(transactionThreshold: 100, gracePeriod: 2)
        let steps = Mutex(0)
        let start = Date().timeIntervalSince1970.rounded()
        let clock = WallClock { Date(timeIntervalSince1970: start + Double(steps.withLock { $0 }) * Self.secondsPerStep) }
        func open(_ name: String) throws -> UbiquityPeer { try cloud.peer(name, policy: policy, clock: clock) }
        let devices = (0..<8).map { "device\($0)" }
        var online: [String: UbiquityPeer] = [:]
        for name in devices.prefix(5) { online[name] = try open(name) }
        var peak = 0
        var saves = 0, joins = 0, leaves = 0, rebuilds = 0

        while saves < 5_000 {
            steps.withLock { $0 += 1 }
            let action = Int.random(in: 0..<1_000, using: &random)
            if action < 6, online.count > 3 {
                // A peer leaves (the app quits; the device may come back later).
                let name = online.keys.sorted()[Int.random(in: 0..<online.count, using: &random)]
                online.removeValue(forKey: name)?.close()
                leaves += 1
            } else if action < 12, online.count < 6, let name = devices.first(where: { online[$0] == nil }) {
                online[name] = try open(name)
                joins += 1
            } else if action < 14 {
                // A peer loses its store and rebuilds it from the container.
                let name = online.keys.sorted()[Int.random(in: 0..<online.count, using: &random)]
                let peer = online.removeValue(forKey: name)!
                _ = try peer.sync()          // flush its outbox first: a rebuild discards the local store
                let path = peer.store.path
                peer.close()
                for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
                online[name] = try open(name)
                rebuilds += 1
            } else {
                let names = online.keys.sorted()
                let peer = online[names[Int.random(in: 0..<names.count, using: &random)]]!
                let context = peer.newContext()
                let key = "k\(Int.random(in: 0..<300, using: &random))"
                if let note = try context.object(GlobalID(entity: "Note", key: key)) {
                    if Int.random(in: 0..<5, using: &random) == 0 { context.delete(note) } else { note["title"] = .string("edit \(saves)") }
                } else {
                    try context.insert("Note", key: key)["title"] = .string("insert \(saves)")
                }
                try context.save()
                saves += 1
                if Int.random(in: 0..<4, using: &random) == 0 { _ = try peer.sync() }
            }
            if saves % 50 == 0 {
                let files = ContainerScan(location: online.values.first!.location!).logs.count
                peak = max(peak, files)
                #expect(files <= Self.logBound, "seed \(seed): \(files) log files after \(saves) saves")
            }
        }

        // Everybody comes back and syncs until nothing moves.
        for name in devices where online[name] == nil { online[name] = try open(name) }
        let peers = devices.compactMap { online[$0] }
        for _ in 0..<4 { for peer in peers { _ = try peer.sync() } }
        let states = try peers.map { try $0.mergeStateText() }
        #expect(Set(states).count == 1, "seed \(seed): \(peers.count) peers converge after \(saves) saves, \(joins) joins, \(leaves) leaves, \(rebuilds) rebuilds")
        print("churn seed \(seed): peak \(peak) log files (bound \(Self.logBound)); \(joins) joins, \(leaves) leaves, \(rebuilds) rebuilds")
        for peer in peers { peer.close() }
    }
}
