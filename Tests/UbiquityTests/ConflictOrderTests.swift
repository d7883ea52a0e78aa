import Foundation
import Testing
@testable import Ubiquity
import UbiquityTestSupport

@Suite("Concurrent conflicting edits converge whatever the import order")
struct ConflictOrderTests {
    /// Every log file in the container, decoded.
    func containerLogs(_ peer: UbiquityPeer) throws -> [TransactionLog] {
        let root = try #require(peer.location).ubiquityRoot
        var logs: [TransactionLog] = []
        for folder in DirectoryEntry.list(root) where !folder.name.hasPrefix(".") {
            let directory = peer.location!.logDirectory(of: folder.name)
            for file in DirectoryEntry.list(directory) where TransactionLog.transactionNumber(inFileName: file.name) != nil {
                logs.append(try TransactionLog(decoding: try AtomicFile.read(directory + "/" + file.name, limit: 1 << 24), model: peer.store.model))
            }
        }
        return logs
    }

    func permutations<T>(_ items: [T]) -> [[T]] {
        guard items.count > 1 else { return [items] }
        return items.indices.flatMap { index -> [[T]] in
            var rest = items
            let head = rest.remove(at: index)
            return permutations(rest).map { [head] + $0 }
        }
    }

    @Test func threeConcurrentEditsEndIdenticalInEveryOrder() throws {
        let cloud = try TestCloud()
        let peers = try cloud.peers(3)
        let base = peers[0].newContext()
        let note = try base.insert("Note", key: "shared")
        note["title"] = .string("original")
        let folderA = try base.insert("Folder", key: "a")
        let folderB = try base.insert("Folder", key: "b")
        let tag = try base.insert("Tag", key: "t")
        try base.save()
        for peer in peers { _ = try peer.sync() }

        // Each peer edits the same properties without seeing the others.
        var edits: [TransactionLog] = []
        for (index, peer) in peers.enumerated() {
            let context = peer.newContext()
            let mine = try #require(try context.object(note.id))
            mine["title"] = .string("title from peer \(index)")
            mine["pinned"] = .boolean(index % 2 == 0)
            try mine.setTarget(index == 1 ? folderB.id : folderA.id, of: "folder")
            if index == 2 { try mine.add(tag.id, to: "tags") }
            edits.append(try #require(try context.save()))
        }
        let baseLogs = try containerLogs(peers[0]).filter { log in !edits.contains { $0.peerID == log.peerID && $0.transactionNumber == log.transactionNumber } }
        #expect(baseLogs.count == 1)

        // Apply the three concurrent logs to fresh stores in all six orders.
        var states: Set<String> = []
        for (index, order) in permutations(edits).enumerated() {
            let store = try PersistentStore(path: cloud.root + "/order\(index).sqlite", model: cloud.model,
                                            peerID: "observer~\(index)", storeName: "Store", contentName: "Notes")
            _ = try store.applyImported(baseLogs)
            for log in order { _ = try store.applyImported([log]) }
            states.insert(try store.mergeState().text())
            // Each loser is in the conflict history, whichever order the writes came in.
            let winner = edits.max { $0.stamp < $1.stamp }!
            let titleConflicts = try store.conflicts().filter { $0.object == note.id && $0.property == "title" }
            for edit in edits where edit.stamp != winner.stamp {
                let value = ConflictValue.attribute(edit.updated[0].values["title"]!)
                #expect(titleConflicts.contains { $0.loserValue == value && $0.loserStamp == edit.stamp.description },
                        "order \(order.map(\.peerID)): the loser \(value) is recorded")
            }
            let final = try #require(try store.snapshot(of: note.id))
            #expect(final.values["title"] == winner.updated[0].values["title"]!)
        }
        #expect(states.count == 1, "all six import orders give one state")

        // And the peers themselves, syncing in their own order, reach the same state.
        for _ in 0..<2 { for peer in peers.reversed() { _ = try peer.sync() } }
        for peer in peers { #expect(states.contains(try peer.mergeStateText())) }
        for peer in peers {
            let losers = try peer.store.conflicts().filter { $0.property == "title" }.map(\.loserValue)
            #expect(losers.count >= 2, "every peer records both losing titles")
        }
    }

    @Test func mergeGroupsAreWonTogether() throws {
        let model = try ObjectModel(name: "Contacts", entities: [
            EntityDescription("Contact", attributes: [
                AttributeDescription("name", .string), AttributeDescription("street", .string),
                AttributeDescription("city", .string), AttributeDescription("zip", .string),
            ], mergeGroups: [["street", "city", "zip"]]),
        ])
        let cloud = try TestCloud(model: model, contentName: "Contacts")
        let peers = try cloud.peers(2)
        let first = peers[0].newContext()
        let contact = try first.insert("Contact", key: "ann")
        contact["street"] = .string("1 Old Road"); contact["city"] = .string("Oldtown"); contact["zip"] = .string("111")
        try first.save()
        for peer in peers { _ = try peer.sync() }

        // Peer 0 moves Ann (street + city + zip); peer 1 later fixes only the zip of the old address.
        let move = peers[0].newContext()
        let moved = try #require(try move.object(contact.id))
        moved["street"] = .string("9 New Street"); moved["city"] = .string("Newcity"); moved["zip"] = .string("999")
        try move.save()
        Thread.sleep(forTimeInterval: 0.005)
        let fix = peers[1].newContext()
        let fixed = try #require(try fix.object(contact.id))
        fixed["zip"] = .string("112")
        let log = try #require(try fix.save())
        #expect(Set(log.updated[0].values.keys) == ["street", "city", "zip"], "a change to one member logs the whole group")
        for _ in 0..<2 { for peer in peers { _ = try peer.sync() } }

        // The later writer wins the whole group: never "9 New Street, Newcity, 112".
        for peer in peers {
            let values = try #require(try peer.store.snapshot(of: contact.id)).values
            #expect(values["street"] == .string("1 Old Road"))
            #expect(values["city"] == .string("Oldtown"))
            #expect(values["zip"] == .string("112"))
        }
        #expect(try peers[0].mergeStateText() == peers[1].mergeStateText())
    }
}
