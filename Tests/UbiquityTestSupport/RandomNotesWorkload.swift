import Foundation
import Ubiquity
import UbiquityBase

/// Random operations on a notes model with every kind of property the merge handles — plain
/// attributes, a merge group, to-one, to-many derived from a to-one, many-to-many — and deletes:
/// the workload of the seeded convergence and join tests.
public struct RandomNotesWorkload {
    public static let model: ObjectModel = {
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

    public var random: SeededGenerator

    public init(seed: UInt64) { random = SeededGenerator(seed: seed) }

    public mutating func pick<T>(_ items: [T]) -> T? { items.isEmpty ? nil : items[Int.random(in: 0..<items.count, using: &random)] }

    public mutating func word() -> AttributeValue {
        .string(pick(["alpha", "beta", "gamma", "delta", "ε", "日本"])! + String(Int.random(in: 0..<100, using: &random)))
    }

    /// One random operation on `peer` (a save, or now and then a sync); the log it saved, if any.
    public mutating func step(on peer: UbiquityPeer) throws -> TransactionLog? {
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
            guard let id = pick(notes)?.id, let note = try context.object(id) else { return nil }
            if Bool.random(using: &random) { note["title"] = word() }
            if Bool.random(using: &random) { note["body"] = Bool.random(using: &random) ? word() : nil }
            note["pinned"] = .boolean(Bool.random(using: &random))
        case 45..<53:
            guard let id = pick(notes)?.id, let note = try context.object(id) else { return nil }
            switch Int.random(in: 0..<3, using: &random) {
            case 0: note["street"] = word()
            case 1: note["city"] = word()
            default: note["zip"] = .integer(Int64.random(in: 1000..<9999, using: &random))
            }
        case 53..<63:
            guard let id = pick(notes)?.id, let note = try context.object(id) else { return nil }
            try note.setTarget(Bool.random(using: &random) ? pick(folders)?.id : nil, of: "folder")
        case 63..<73:
            guard let id = pick(notes)?.id, let note = try context.object(id), let tag = pick(tags) else { return nil }
            if Bool.random(using: &random) { try note.add(tag.id, to: "tags") } else { try note.remove(tag.id, from: "tags") }
        case 73..<77:
            guard let id = pick(tags)?.id, let tag = try context.object(id), let note = pick(notes) else { return nil }
            try tag.add(note.id, to: "notes")
        case 77..<85:
            guard let id = pick(notes)?.id, let note = try context.object(id) else { return nil }
            context.delete(note)
        case 85..<88:
            guard let id = (pick(folders) ?? pick(tags))?.id, let object = try context.object(id) else { return nil }
            context.delete(object)
        default:
            _ = try peer.sync()
            return nil
        }
        return try context.save()
    }
}
