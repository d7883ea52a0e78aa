import Foundation
import Testing
@testable import Ubiquity
import UbiquityTestSupport

/// Three machines, two peers on each, their clouds carried by a file-sync engine that delivers
/// in random order through temporary files, makes conflict copies, deletes late, and drops
/// machines off the network; peers save, sync, roll baselines, collect garbage and remove the
/// content at random. Afterwards every peer holds the same data, no log was applied twice
/// between two starts over, nothing waits, every note saved in the final content epoch or in one
/// made at the same time (and not deleted there) is there, and nothing saved in another epoch is.
@Suite("Seeded file-sync delivery converges")
struct FileSyncRandomTests {
    struct Save {
        let key: String
        let peerID: String
        let number: Int64
        /// The content epoch its peer was in when it saved (`nil`: never removed).
        let epoch: String?
    }

    /// Always with baselines and garbage collection; with `removing`, content removals too (a
    /// peer that collects its own logs under a baseline of removed content before it hears of the
    /// removal leaves nobody waiting: those logs belong to the removed content).
    ///
    /// 15644441173878731524, 1006 and 1014 found concurrent baselines rolled on two machines
    /// (conflict copies of `baseline.zip`) leaving logs unreachable.
    @Test(arguments: SeededGenerator.testSeeds([11, 12, 15_644_441_173_878_731_524, 1006, 1014]), [false, true])
    func threeMachinesThroughAFileSyncEngineConverge(seed: UInt64, removing: Bool) throws {
        var random = SeededGenerator(seed: seed)
        let machines = try TestMachines(3)
        machines.engine.exposesPartialFiles = seed % 2 == 0   // also a tool that breaks the atomic-rename rule
        let policy = BaselinePolicy(transactionThreshold: 12)
        let peers = try (0..<6).map { try machines.peer("p\($0)", on: $0 % 3, policy: policy) }
        var inserted: [Save] = [], deleted: [Save] = []
        var applied: [String: Set<String>] = [:]
        var duplicates: [String] = []
        var removals = 0, rolls = 0, collected = 0
        var removalsMade: [String: ContentRemoval] = [:]
        func remove(_ peer: UbiquityPeer) throws {
            try peer.removeUbiquitousContent()
            if let removal = try peer.store.contentRemoval() { removalsMade[removal.epoch] = removal }
            applied[peer.peerID] = []
            removals += 1
        }

        func record(_ summary: SyncSummary, _ peer: UbiquityPeer) {
            if summary.contentRemoved || summary.adoptedBaseline != nil { applied[peer.peerID] = [] }
            collected += summary.garbage?.deleted.count ?? 0
            for (author, number) in summary.imported.applied where !applied[peer.peerID, default: []].insert("\(author):\(number)").inserted {
                duplicates.append("\(peer.peerID) applied \(author):\(number) twice")
            }
        }

        for step in 0..<400 {
            let peer = peers.randomElement(using: &random)!
            if removing && removals == 0 && step == 200 {   // every seed removes the content at least once
                try remove(peer)
                continue
            }
            switch Int.random(in: 0..<100, using: &random) {
            case 0..<22:
                let key = "k\(step)"
                inserted.append(Save(key: key, peerID: peer.peerID, number: try saveNote(peer, key), epoch: try peer.store.contentEpoch()))
            case 22..<30:
                guard let note = try peer.store.fetch(FetchRequest(entity: "Note")).randomElement(using: &random) else { continue }
                try saveNote(peer, note.id.key, title: "edit \(step)")
            case 30..<34:
                guard let note = try peer.store.fetch(FetchRequest(entity: "Note")).randomElement(using: &random) else { continue }
                let context = peer.newContext()
                guard let object = try context.object(note.id) else { continue }
                context.delete(object)
                try context.save()
                deleted.append(Save(key: note.id.key, peerID: peer.peerID, number: peer.store.knowledge[peer.peerID], epoch: try peer.store.contentEpoch()))
            case 34..<58:
                record(try peer.sync(), peer)
            case 58..<95:
                machines.engine.step(using: &random)
            case 95..<97:
                if case .rolled = try peer.rollBaseline(force: true) { rolls += 1 }
            case 97:
                guard removing, removals < 2 else { continue }
                try remove(peer)
            default:
                let host = Int.random(in: 0..<3, using: &random)
                machines.engine.online[host].toggle()
            }
        }

        // Everyone back online; deliver and sync until nothing moves.
        machines.engine.online = [true, true, true]
        var quiet = false
        for _ in 0..<30 where !quiet {
            machines.engine.settle(using: &random)
            quiet = true
            for peer in peers {
                let summary = try peer.sync()
                record(summary, peer)
                if summary.exported > 0 || !summary.imported.applied.isEmpty || summary.imported.waiting > 0 || summary.contentRemoved
                    || summary.adoptedBaseline != nil || (summary.garbage?.deleted.isEmpty == false) { quiet = false }
                if case .rolled? = summary.baseline { quiet = false }
            }
        }
        let context = "seed \(seed)\(removing ? " with removals" : ""): \(inserted.count) inserts, \(deleted.count) deletes, \(removals) removals, \(rolls) forced rolls, \(collected) logs collected, \(machines.engine.conflictCopiesMade) conflict copies, \(machines.engine.deletionsDelivered) deletions delivered, \(machines.engine.temporariesShown) temporary files, \(machines.engine.partialsShown) partial files"
        print(context)
        #expect(quiet, "the machines settled (\(context))")
        #expect(duplicates.isEmpty, "\(duplicates.prefix(5)) (\(context))")
        let dumps = try peers.map { try $0.dumpText() }
        for (peer, dump) in zip(peers, dumps) { #expect(dump == dumps[0], "\(peer.peerID) converged (\(context))") }
        for peer in peers {
            let summary = try peer.sync()
            let findings = summary.imported.waiting == 0 ? [] : try Doctor.examine(peer).map(\.message)
            #expect(summary.imported.waiting == 0 && summary.imported.missingPredecessors.isEmpty,
                    "nothing waits at \(peer.peerID): \(findings) (\(context))")
        }

        // A removal wins over what was saved before its saver heard of it (as on Apple's): the
        // notes are those saved in the final epoch, or in an epoch of a removal made at the same
        // time, which its peers carried over, and not deleted there. (A peer that carries a note
        // alive before it imported its delete in the other epoch brings it back: Lifecycle.md.)
        let final = ContentEpoch.read(try #require(peers[0].location))
        for peer in peers { #expect(try peer.store.contentEpoch() == final, "\(peer.peerID) is in the final epoch (\(context))") }
        let kept = Set([final] + removalsMade.values.filter { removal in
            final.flatMap { removalsMade[$0] }.map(removal.isConcurrent(with:)) ?? false
        }.map { Optional($0.epoch) })
        let expected = Set(inserted.filter { kept.contains($0.epoch) }.map(\.key)).subtracting(deleted.filter { kept.contains($0.epoch) }.map(\.key))
        let allowed = Set(inserted.filter { kept.contains($0.epoch) }.map(\.key)).subtracting(deleted.filter { $0.epoch == final }.map(\.key))
        let present = Set(try noteKeys(peers[0]))
        #expect(expected.subtracting(present).isEmpty, "saved notes lost: \(expected.subtracting(present).sorted()) (\(context))")
        #expect(present.subtracting(allowed).isEmpty, "removed or deleted notes back: \(present.subtracting(allowed).sorted()) (\(context))")
        if removing { #expect(removals > 0, "the content was removed at least once (\(context))") }
    }
}
