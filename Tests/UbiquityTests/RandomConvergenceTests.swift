import Foundation
import Testing
@testable import Ubiquity

/// Five peers, hundreds of random operations and random sync order; then every peer must hold
/// the same merge state, and that state must be exactly what the logs say (an oracle computed
/// from every saved log): so no saved edit is lost and no deleted object comes back unasked.
@Suite("Seeded random operations converge")
struct RandomConvergenceTests {
    static let model: ObjectModel = {
        try! ObjectModel(name: "Random", entities: [
            EntityDescription("Folder", attributes: [AttributeDescription("name", .string)],
                              relationships: [RelationshipDescription("notes", destination: "Note", inverse: "folder", toMany: true)]),
            EntityDescription("Note", attributes: [
                AttributeDescription("title", .string), AttributeDescription("body", .string),
                AttributeDescription("pinned", .boolean, optional: false, default: .boolean(false)),
                AttributeDescription("street", .string), AttributeDescription("city", .string), AttributeDescription("zip", .integer),
            ], relationships: [
                RelationshipDescription("folder", destination: "Folder", inverse: "notes"),
                RelationshipDescription("tags", destination: "Tag", inverse: "notes", toMany: true),
            ], mergeGroups: [["street", "city", "zip"]]),
            EntityDescription("Tag", attributes: [AttributeDescription("name", .string)],
                              relationships: [RelationshipDescription("notes", destination: "Note", inverse: "tags", toMany: true)]),
        ])
    }()

    @Test(arguments: SeededGenerator.testSeeds([1, 2]))
    func randomOperationsOnFivePeersConverge(seed: UInt64) throws {
        var random = SeededGenerator(seed: seed)
        let cloud = try TestCloud(model: Self.model, contentName: "Random")
        let peers = try cloud.peers(5)
        var logs: [TransactionLog] = []

        func pick<T>(_ items: [T]) -> T? { items.isEmpty ? nil : items[Int.random(in: 0..<items.count, using: &random)] }
        func word() -> AttributeValue { .string(pick(["alpha", "beta", "gamma", "delta", "ε", "日本"])! + String(Int.random(in: 0..<100, using: &random))) }

        for _ in 0..<500 {
            let peer = pick(peers)!
            let context = peer.newContext()
            let notes = try peer.store.fetch(FetchRequest(entity: "Note"))
            let folders = try peer.store.fetch(FetchRequest(entity: "Folder"))
            let tags = try peer.store.fetch(FetchRequest(entity: "Tag"))
            switch Int.random(in: 0..<100, using: &random) {
            case 0..<18:
                let key = Bool.random(using: &random) ? "k\(Int.random(in: 0..<8, using: &random))" : nil
                let note = try key.flatMap { try context.object(GlobalID(entity: "Note", key: $0)) } ?? context.insert("Note", key: key)
                note["title"] = word()
                if let folder = pick(folders), Bool.random(using: &random) { try note.setTarget(folder.id, of: "folder") }
            case 18..<22:
                let key = "f\(Int.random(in: 0..<3, using: &random))"
                let folder = try context.object(GlobalID(entity: "Folder", key: key)) ?? context.insert("Folder", key: key)
                folder["name"] = word()
            case 22..<26:
                let key = "t\(Int.random(in: 0..<3, using: &random))"
                let tag = try context.object(GlobalID(entity: "Tag", key: key)) ?? context.insert("Tag", key: key)
                tag["name"] = word()
            case 26..<45:
                guard let id = pick(notes)?.id, let note = try context.object(id) else { continue }
                if Bool.random(using: &random) { note["title"] = word() }
                if Bool.random(using: &random) { note["body"] = Bool.random(using: &random) ? word() : nil }
                note["pinned"] = .boolean(Bool.random(using: &random))
            case 45..<53:
                guard let id = pick(notes)?.id, let note = try context.object(id) else { continue }
                switch Int.random(in: 0..<3, using: &random) {
                case 0: note["street"] = word()
                case 1: note["city"] = word()
                default: note["zip"] = .integer(Int64.random(in: 1000..<9999, using: &random))
                }
            case 53..<63:
                guard let id = pick(notes)?.id, let note = try context.object(id) else { continue }
                try note.setTarget(Bool.random(using: &random) ? pick(folders)?.id : nil, of: "folder")
            case 63..<73:
                guard let id = pick(notes)?.id, let note = try context.object(id), let tag = pick(tags) else { continue }
                if Bool.random(using: &random) { try note.add(tag.id, to: "tags") } else { try note.remove(tag.id, from: "tags") }
            case 73..<77:
                guard let id = pick(tags)?.id, let tag = try context.object(id), let note = pick(notes) else { continue }
                try tag.add(note.id, to: "notes")
            case 77..<85:
                guard let id = pick(notes)?.id, let note = try context.object(id) else { continue }
                context.delete(note)
            case 85..<88:
                guard let id = (pick(folders) ?? pick(tags))?.id, let object = try context.object(id) else { continue }
                context.delete(object)
            default:
                _ = try peer.sync()
                continue
            }
            if let log = try context.save() { logs.append(log) }
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
