import Foundation
import Ubiquity

/// The story `ubiq demo` tells. Every step goes through the library's public API, exactly as
/// an app would; the demo adds words, not sync logic.
struct DemoScenario {
    let a: DemoPeer, b: DemoPeer, c: DemoPeer
    var all: [DemoPeer] { [a, b, c] }

    // Natural keys make the story's IDs readable; these constants are valid, so `try!` cannot fire.
    let trip = try! GlobalID(entity: "Folder", key: "trip")
    let packing = try! GlobalID(entity: "Note", key: "packing-list")
    let flights = try! GlobalID(entity: "Note", key: "flights")
    let urgent = try! GlobalID(entity: "Tag", key: "urgent")
    let titleB = "Packing list for Rome"
    let titleC = "Packing list (long weekend)"

    init(root: String, template: PeerConfiguration) throws {
        Console.out("Ubiquity demo: three devices share one iCloud account through a cloud folder.")
        Console.out("Working in \(root)\n")
        Console.out("Step 1. Three devices sign in to the same account, each with its own store:")
        a = try DemoPeer(letter: "A", user: "alice", root: root, template: template)
        b = try DemoPeer(letter: "B", user: "bob", root: root, template: template)
        c = try DemoPeer(letter: "C", user: "carol", root: root, template: template)
        for peer in [a, b, c] { Console.out("  \(peer.letter) is peer \(peer.peer.peerID)") }
    }

    func close() { for peer in all { peer.peer.close() } }

    /// Tells the story; returns whether the three stores converged with nothing lost.
    func run() throws -> Bool {
        step(2, "A creates a folder \"Trip\" holding two notes, and a tag. One save: one transaction log in the cloud.")
        try a.save { context in
            try context.insert("Folder", key: trip.key).setValue(.string("Trip"), for: "name")
            for (id, title) in [(packing, "Packing list"), (flights, "Flights")] {
                let note = try context.insert("Note", key: id.key)
                try note.setValue(.string(title), for: "title")
                try note.setTarget(trip, of: "folder")
            }
            try context.insert("Tag", key: urgent.key).setValue(.string("urgent"), for: "name")
        }
        Console.out("  A saved \(trip), \(packing), \(flights) and \(urgent)")

        step(3, "Everyone syncs: B and C import A's log.")
        for peer in all { try peer.sync() }
        for peer in [b, c] { Console.out("  \(peer.letter) now holds \(try objectCount(peer)) objects") }

        step(4, "Each device works on its own. Every save is in the cloud at once, but nobody imports yet:")
        try b.save { try b.object(packing, in: $0).setValue(.string(titleB), for: "title") }
        Console.out("  B renames \"Packing list\" to \"\(titleB)\"")
        try c.save { try c.object(packing, in: $0).setValue(.string(titleC), for: "title") }
        Console.out("  C renames it to \"\(titleC)\" — neither has seen the other's edit: a conflict")
        try a.save { context in
            context.delete(try a.object(flights, in: context))
            try a.object(packing, in: context).add(urgent, to: "tags")
        }
        Console.out("  A deletes \"Flights\" and tags the packing list \"urgent\"")

        step(5, "They sync in an awkward order: C, A, B, then A and C again.")
        for peer in [c, a, b, a, c] { try peer.sync() }

        step(6, "The conflict history: the later write wins everywhere, the other is kept on record.")
        let conflicts = try distinctConflicts()
        for (conflict, letters) in conflicts {
            Console.out("  \(conflict.object).\(conflict.property): \(conflict.winnerValue.text()) from \(letter(of: conflict.winnerPeer))"
                + " won over \(conflict.loserValue.text()) from \(letter(of: conflict.loserPeer)) (recorded on \(letters.joined(separator: ", ")))")
        }
        if conflicts.isEmpty { Console.out("  (no conflict was recorded)") }

        step(7, "Compare the three stores byte for byte ('ubiq dump --json' on each device):")
        let dumps = try all.map { try $0.dumpText() }
        for (peer, dump) in zip(all, dumps) {
            Console.out("  \(peer.letter): \(try objectCount(peer)) objects, \(dump.utf8.count) bytes, \(dump == dumps[0] ? "identical to A's" : "DIFFERENT from A's")")
        }
        Console.out("  What every device now shows:")
        Console.out(try DumpCommand.listing(of: a.peer.store).split(separator: "\n").map { "    " + $0 }.joined(separator: "\n"))

        let problems = try DemoVerdict(scenario: self, dumps: dumps, conflicts: conflicts.map(\.0)).problems()
        Console.out("")
        if problems.isEmpty {
            Console.out("Verdict: converged — 3 peers, \(try objectCount(a)) objects, \(conflicts.count) conflict(s) recorded, nothing lost")
            return true
        }
        Console.out("Verdict: NOT converged — " + problems.joined(separator: "; "))
        return false
    }

    private func step(_ number: Int, _ text: String) {
        Console.out("\nStep \(number). \(text)")
    }

    func objectCount(_ peer: DemoPeer) throws -> Int {
        guard case let .array(objects) = try peer.peer.store.dump() else { return 0 }
        return objects.count
    }

    private func letter(of peerID: String) -> String {
        all.first { $0.peer.peerID == peerID }?.letter ?? peerID
    }

    /// Each peer keeps its own history; the same overwrite seen by several peers is one conflict.
    private func distinctConflicts() throws -> [(ConflictRecord, [String])] {
        var result: [(ConflictRecord, [String])] = []
        for peer in all {
            for record in try peer.peer.store.conflicts() {
                if let index = result.firstIndex(where: { Self.same($0.0, record) }) {
                    result[index].1.append(peer.letter)
                } else {
                    result.append((record, [peer.letter]))
                }
            }
        }
        return result
    }

    private static func same(_ lhs: ConflictRecord, _ rhs: ConflictRecord) -> Bool {
        lhs.object == rhs.object && lhs.property == rhs.property && lhs.kind == rhs.kind
            && Set([lhs.winnerStamp, lhs.loserStamp]) == Set([rhs.winnerStamp, rhs.loserStamp])
    }
}
