import Foundation
import Testing
@testable import Ubiquity
import UbiquityTestSupport

/// Each merge policy on each kind of conflict gives Core Data's outcome, and every peer then
/// converges on it. The expected outcomes are the table of Docs/MergePolicies.md.
@Suite("Merge policies")
struct MergePolicyTests {
    enum Kind: String, CaseIterable { case attribute, toOne, toMany, deleteVersusUpdate, updateVersusDelete }
    enum Policy: String, CaseIterable { case error, storeTrump, objectTrump, overwrite, rollback }

    /// What the saved note must look like after the save: title, body, folder key, tag keys;
    /// `nil` = the note is deleted; "throws" = the save failed and the store kept its version.
    struct Outcome: Equatable {
        var title: String, body: String, folder: String, tags: [String]
        static let deleted: Outcome? = nil
    }

    static let store = Outcome(title: "store", body: "store body", folder: "f2", tags: ["t1", "t2"])

    /// The table: kind → policy → outcome (`.none` = deleted). `error` always throws and keeps
    /// the store's version, checked separately.
    static let expected: [Kind: [Policy: Outcome?]] = [
        .attribute: [
            .storeTrump: Outcome(title: "store", body: "store body", folder: "f1", tags: ["t1"]),
            .objectTrump: Outcome(title: "context", body: "store body", folder: "f1", tags: ["t1"]),
            .overwrite: Outcome(title: "context", body: "read body", folder: "f1", tags: ["t1"]),
            .rollback: Outcome(title: "store", body: "store body", folder: "f1", tags: ["t1"]),
        ],
        .toOne: [
            .storeTrump: Outcome(title: "read", body: "read body", folder: "f2", tags: ["t1"]),
            .objectTrump: Outcome(title: "read", body: "read body", folder: "f3", tags: ["t1"]),
            .overwrite: Outcome(title: "read", body: "read body", folder: "f3", tags: ["t1"]),
            .rollback: Outcome(title: "read", body: "read body", folder: "f2", tags: ["t1"]),
        ],
        .toMany: [
            .storeTrump: Outcome(title: "read", body: "read body", folder: "f1", tags: ["t1", "t2"]),
            .objectTrump: Outcome(title: "read", body: "read body", folder: "f1", tags: ["t1", "t3"]),
            .overwrite: Outcome(title: "read", body: "read body", folder: "f1", tags: ["t1", "t3"]),
            .rollback: Outcome(title: "read", body: "read body", folder: "f1", tags: ["t1", "t2"]),
        ],
        .deleteVersusUpdate: [
            .storeTrump: Outcome(title: "store", body: "read body", folder: "f1", tags: ["t1"]),
            .objectTrump: .deleted,
            .overwrite: .deleted,
            .rollback: Outcome(title: "store", body: "read body", folder: "f1", tags: ["t1"]),
        ],
        .updateVersusDelete: [
            .storeTrump: .deleted,
            .objectTrump: Outcome(title: "context", body: "read body", folder: "f1", tags: ["t1"]),
            .overwrite: Outcome(title: "context", body: "read body", folder: "f1", tags: ["t1"]),
            .rollback: .deleted,
        ],
    ]

    struct Scene {
        let mine: UbiquityPeer, other: UbiquityPeer
        let context: ObjectContext
        let note: GlobalID
        /// Last: a struct's properties go in their order, and the cloud must outlive its peers.
        let cloud: TestCloud
    }

    /// Both peers hold the note (title "read", folder f1, tag t1); `mine`'s context reads it;
    /// then `other` changes it for `kind` and `mine` imports that underneath the context.
    func scene(_ kind: Kind) throws -> Scene {
        let cloud = try TestCloud()
        let mine = try cloud.peer("mine", policy: nil), other = try cloud.peer("other", policy: nil)
        let setup = mine.newContext()
        for key in ["f1", "f2", "f3"] { try setup.insert("Folder", key: key) }
        for key in ["t1", "t2", "t3"] { try setup.insert("Tag", key: key) }
        let note = try setup.insert("Note", key: "n")
        note["title"] = .string("read")
        note["body"] = .string("read body")
        try note.setTarget(GlobalID(entity: "Folder", key: "f1"), of: "folder")
        try note.add(GlobalID(entity: "Tag", key: "t1"), to: "tags")
        try setup.save()
        _ = try other.sync()

        let context = mine.newContext()
        let read = try #require(try context.object(note.id))
        _ = try read.targets(of: "tags")

        let theirs = other.newContext()
        let changed = try #require(try theirs.object(note.id))
        switch kind {
        case .attribute:
            changed["title"] = .string("store")
            changed["body"] = .string("store body")
        case .toOne: try changed.setTarget(GlobalID(entity: "Folder", key: "f2"), of: "folder")
        case .toMany: try changed.add(GlobalID(entity: "Tag", key: "t2"), to: "tags")
        case .deleteVersusUpdate: changed["title"] = .string("store")
        case .updateVersusDelete: theirs.delete(changed)
        }
        try theirs.save()
        _ = try mine.sync()

        switch kind {
        case .attribute: read["title"] = .string("context")
        case .toOne: try read.setTarget(GlobalID(entity: "Folder", key: "f3"), of: "folder")
        case .toMany: try read.add(GlobalID(entity: "Tag", key: "t3"), to: "tags")
        case .deleteVersusUpdate: context.delete(read)
        case .updateVersusDelete: read["title"] = .string("context")
        }
        return Scene(mine: mine, other: other, context: context, note: note.id, cloud: cloud)
    }

    func outcome(_ store: PersistentStore, _ id: GlobalID) throws -> Outcome? {
        guard let snapshot = try store.snapshot(of: id) else { return nil }
        return Outcome(title: snapshot.values["title"]??.stringValue ?? "nil", body: snapshot.values["body"]??.stringValue ?? "nil",
                       folder: (snapshot.toOne["folder"] ?? nil)?.key ?? "nil", tags: try store.targets(of: "tags", of: id).map(\.key))
    }

    func mergePolicy(_ policy: Policy) -> MergePolicy {
        switch policy {
        case .error: return .error
        case .storeTrump: return .propertyStoreTrump
        case .objectTrump: return .propertyObjectTrump
        case .overwrite: return .overwrite
        case .rollback: return .rollback
        }
    }

    @Test(arguments: Kind.allCases, Policy.allCases.filter { $0 != .error })
    func eachPolicyGivesCoreDatasOutcomeAndPeersConverge(kind: Kind, policy: Policy) throws {
        let scene = try scene(kind)
        scene.context.mergePolicy = mergePolicy(policy)
        _ = try scene.context.save()
        let want = Self.expected[kind]![policy]!
        #expect(try outcome(scene.mine.store, scene.note) == want, "\(kind) under \(policy)")
        for _ in 0..<2 { for peer in [scene.other, scene.mine] { _ = try peer.sync() } }
        #expect(try outcome(scene.other.store, scene.note) == want, "\(kind) under \(policy): the other peer converges on it")
        #expect(try scene.mine.mergeStateText() == scene.other.mergeStateText())
    }

    @Test(arguments: Kind.allCases)
    func theErrorPolicyListsTheConflictAndSavesNothing(kind: Kind) throws {
        let scene = try scene(kind)
        let before = try scene.mine.mergeStateText()
        #expect {
            try scene.context.save()
        } throws: { error in
            guard let conflicts = (error as? MergeConflictsError)?.conflicts, let conflict = conflicts.first else { return false }
            let expectedKind: MergeConflict.Kind = kind == .deleteVersusUpdate ? .deletedInContext : (kind == .updateVersusDelete ? .deletedInStore : .updated)
            return conflicts.count == 1 && conflict.object == scene.note && conflict.kind == expectedKind
                && conflict.snapshot["title"] == .some(.string("read"))
                && (kind == .updateVersusDelete ? conflict.persisted.isEmpty && conflict.persistedVersion == nil : conflict.persistedVersion != conflict.cachedVersion || !conflict.toMany.isEmpty)
        }
        #expect(try scene.mine.mergeStateText() == before, "nothing was saved")
        #expect(scene.context.hasChanges, "the changes stay in the context")
    }

    @Test func aCustomResolverDecidesAndEveryPeerConverges() throws {
        let scene = try scene(.attribute)
        let seen = EventLog<String>()
        scene.context.mergePolicy = .custom { conflict in
            seen.append("\(conflict.object) \(conflict.changes["title"].flatMap { $0?.stringValue } ?? "") vs \(conflict.persisted["title"].flatMap { $0?.stringValue } ?? "")")
            return .values(["title": .string("merged: context + store"), "body": nil])
        }
        _ = try scene.context.save()
        #expect(seen.events == ["\(scene.note) context vs store"])
        for _ in 0..<2 { for peer in [scene.other, scene.mine] { _ = try peer.sync() } }
        for store in [scene.mine.store, scene.other.store] {
            #expect(try outcome(store, scene.note) == Outcome(title: "merged: context + store", body: "nil", folder: "f1", tags: ["t1"]))
        }
    }

    @Test func anotherContextsSaveIsAConflictToo() throws {
        let cloud = try TestCloud()
        let peer = try cloud.peer("solo", policy: nil)
        let first = peer.newContext(), second = peer.newContext()
        let note = try first.insert("Note", key: "n")
        note["title"] = .string("v1")
        try first.save()
        let a = try #require(try first.object(note.id)), b = try #require(try second.object(note.id))
        a["title"] = .string("from first")
        try first.save()
        b["body"] = .string("from second")
        #expect(throws: MergeConflictsError.self) { try second.save() }
        second.mergePolicy = .propertyObjectTrump
        try second.save()
        let saved = try #require(try peer.store.snapshot(of: note.id))
        #expect(saved.values["title"] == .string("from first"), "object trump keeps external changes to properties it did not change")
        #expect(saved.values["body"] == .string("from second"))
    }

    @Test func objectsOnlyReadAreNeverInConflict() throws {
        let scene = try scene(.toMany)
        scene.context.rollback()
        let reader = scene.mine.newContext()
        let read = try #require(try reader.object(scene.note))
        _ = try read.targets(of: "tags")
        _ = read["title"]
        let theirs = scene.other.newContext()
        try #require(try theirs.object(scene.note))["title"] = .string("changed underneath")
        try theirs.save()
        _ = try scene.mine.sync()
        try reader.insert("Note", key: "unrelated")["title"] = .string("new")
        #expect(throws: Never.self) { try reader.save() }
    }
}
