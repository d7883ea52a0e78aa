import Foundation
import Testing
import UbiquityBase
@testable import UbiquityCore

/// A context's check of a new natural key answers "not alive" from a Bloom filter of the IDs
/// that may be alive (`LiveKeyFilters`) instead of a SQLite lookup. A filter that missed an
/// ID alive in the store would let a key be inserted twice, so each way a row becomes alive
/// is held here to the lookup's answer: a local save, an import (new row, and a row brought
/// back from its tombstone), a baseline's join (into an empty store and merged), and a save
/// by another connection to the same file.
@Suite("Key checks answered by a filter of live IDs")
struct LiveKeyFilterTests {
    final class Stores {
        let directory = NSTemporaryDirectory() + "live-keys-\(UUID().uuidString)"
        init() throws { try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true) }
        deinit { try? FileManager.default.removeItem(atPath: directory) }

        func open(_ name: String, peer: String? = nil) throws -> PersistentStore {
            try PersistentStore(path: directory + "/\(name).sqlite", model: .notes, peerID: peer ?? "peer~\(name)", storeName: "Store", contentName: "Notes")
        }
    }

    static func note(_ key: String) throws -> GlobalID { try GlobalID(entity: "Note", key: key) }

    /// Saves new notes of `keys` in one context; returns the log.
    @discardableResult
    static func save(_ keys: [String], in store: PersistentStore) throws -> TransactionLog {
        let context = ObjectContext(store: store)
        for key in keys {
            let note = try context.insert("Note", key: key)
            note["title"] = .string(key)
            note["pinned"] = .boolean(false)
        }
        return try #require(try context.save())
    }

    /// Whether inserting `key` in a new context is refused as alive, checked against what the
    /// store's rows say (`snapshot`, a lookup that never asks the filter).
    static func insertIsRefused(_ key: String, in store: PersistentStore) throws -> Bool {
        let id = try note(key)
        let refused: Bool
        do {
            _ = try ObjectContext(store: store).insert("Note", key: key)
            refused = false
        } catch StoreError.objectExists(id) {
            refused = true
        }
        #expect(refused == (try store.snapshot(of: id) != nil), "\(key): the filter's answer is not the row's")
        return refused
    }

    static func filterIsBuilt(_ store: PersistentStore) throws -> Bool { try store.table("Note").liveKeys.isBuilt }

    @Test func keysSavedHereAreRefusedAndNewOnesTaken() throws {
        let stores = try Stores()
        let store = try stores.open("a")
        let keys = (0..<300).map { "k\($0)" }
        try Self.save(keys, in: store)
        #expect(try Self.filterIsBuilt(store), "the first key check of a small table builds its filter")
        for key in keys { #expect(try Self.insertIsRefused(key, in: store)) }
        for key in (300..<600).map({ "k\($0)" }) { #expect(try !Self.insertIsRefused(key, in: store)) }
    }

    @Test func keysImportedAreRefused() throws {
        let stores = try Stores()
        let a = try stores.open("a"), b = try stores.open("b")
        try Self.save(["mine"], in: a)
        #expect(try Self.filterIsBuilt(a))
        let log = try Self.save(["theirs"], in: b)
        #expect(try a.applyImported([log]).applied.count == 1)
        #expect(try Self.insertIsRefused("theirs", in: a))
    }

    /// A row alive again after its tombstone goes down the merge's general path, not the insert
    /// of a new row: the filter, built while the row was dead, must hear of it there too.
    @Test func aKeyBroughtBackByAnImportIsRefused() throws {
        let stores = try Stores()
        let a = try stores.open("a"), b = try stores.open("b")
        let inserted = try Self.save(["k"], in: a)
        let context = ObjectContext(store: a)
        context.delete(try #require(try context.object(Self.note("k"))))
        let deleted = try #require(try context.save())
        // A new store object on the same file starts without a filter; it builds one from the
        // live rows, where "k" is not.
        let reopened = try stores.open("a")
        #expect(try !Self.insertIsRefused("k", in: reopened))
        #expect(try Self.filterIsBuilt(reopened))
        // b saw the delete, so its insert of "k" brings the object back on a.
        #expect(try b.applyImported([inserted, deleted]).applied.count == 2)
        let again = try Self.save(["k"], in: b)
        #expect(try reopened.applyImported([again]).applied.count == 1)
        #expect(try Self.insertIsRefused("k", in: reopened))
    }

    @Test(arguments: [false, true])
    func keysOfAJoinedBaselineAreRefused(storeHoldsObjects: Bool) throws {
        let stores = try Stores()
        let a = try stores.open("a"), b = try stores.open("b")
        try Self.save(["b1", "b2"], in: b)
        let state = stores.directory + "/state.sqlite"
        let knowledge = try b.writeStateFile(to: state)
        if storeHoldsObjects {
            try Self.save(["a1"], in: a)         // the baseline is merged row by row
        } else {
            #expect(try !Self.insertIsRefused("a1", in: a))   // a check builds the filter; nothing saved: the rows are copied whole
        }
        #expect(try Self.filterIsBuilt(a))
        _ = try a.joinStateFile(at: state, knowledge: knowledge)
        #expect(try Self.insertIsRefused("b1", in: a))
        #expect(try Self.insertIsRefused("b2", in: a))
        #expect(try Self.insertIsRefused("a1", in: a) == storeHoldsObjects)
    }

    /// Another store object on the same file (in a process, another connection) commits: the
    /// filter hears nothing of it, and SQLite's data version tells it to start again.
    @Test func aSaveThroughAnotherConnectionIsSeen() throws {
        let stores = try Stores()
        let first = try stores.open("a")
        try Self.save(["one"], in: first)
        #expect(try Self.filterIsBuilt(first))
        // Opened after the first's save, so it numbers its own transaction after it.
        try Self.save(["two"], in: try stores.open("a"))
        #expect(try Self.insertIsRefused("two", in: first))
        #expect(try Self.insertIsRefused("one", in: first))
    }

    /// A table of more rows than the checks so far pay for is read only after enough checks:
    /// one check of a 5,000-row table asks SQLite, and so do the next 254; the 256th builds the filter.
    @Test func aLargeTableIsReadOnceEnoughKeysWereChecked() throws {
        let stores = try Stores()
        try Self.save((0..<5_000).map { "k\($0)" }, in: stores.open("a"))
        let store = try stores.open("a")
        #expect(try Self.insertIsRefused("k0", in: store))
        #expect(try !Self.filterIsBuilt(store))
        let context = ObjectContext(store: store)
        for index in 5_000..<5_254 { _ = try context.insert("Note", key: "k\(index)") }
        #expect(try !Self.filterIsBuilt(store))
        _ = try context.insert("Note", key: "k5254")
        #expect(try Self.filterIsBuilt(store))
        #expect(try Self.insertIsRefused("k4999", in: store))
        #expect(try !Self.insertIsRefused("k9999", in: store))
    }
}

/// The Bloom filter itself: never a false "absent", few false "maybe"s, and IDs told apart by
/// their bytes as SQLite tells `gid`s apart.
@Suite("Bloom filter of object IDs")
struct GlobalIDFilterTests {
    @Test(arguments: SeededGenerator.testSeeds([1, 2, 3]))
    func addedIDsAreAlwaysFoundAndOthersRarely(seed: UInt64) {
        var generator = SeededGenerator(seed: seed)
        func randomID() -> String { "Note/" + String((0..<Int.random(in: 1...40, using: &generator)).map { _ in "abcdefghé-0123456789".randomElement(using: &generator)! }) }
        // Four times the first layer's room: the filter grows two layers.
        var filter = GlobalIDFilter(capacity: 1_000)
        let added = Set((0..<7_000).map { _ in randomID() })
        for id in added { filter.add(id) }
        #expect(filter.count == added.count)
        #expect(added.allSatisfy(filter.mayContain), "seed \(seed)")
        let others = (0..<20_000).map { _ in randomID() + "+" }
        let falsePositives = others.filter(filter.mayContain).count
        #expect(falsePositives < others.count * 3 / 100, "seed \(seed): \(falsePositives) of \(others.count)")
    }

    @Test func aStringAndItsBytesHashAlike() {
        for text in ["Note/a", "Note/" + String(repeating: "x", count: 200), "Note/é", "Note/🍎 and more", ""] {
            #expect(GlobalIDFilter.hash(text) == Array(text.utf8).withUnsafeBytes { GlobalIDFilter.hash(bytes: $0) })
        }
    }

    /// "é" as one scalar and as e + combining accent are equal Swift strings, but SQLite keeps
    /// two rows for them: the filter hashes the bytes, so one never answers for the other.
    @Test func canonicallyEqualKeysWithOtherBytesAreDifferentIDs() {
        let composed = "Note/caf\u{E9}", decomposed = "Note/cafe\u{301}"
        #expect(composed == decomposed)
        #expect(GlobalIDFilter.hash(composed) != GlobalIDFilter.hash(decomposed))
        var filter = GlobalIDFilter(capacity: 16)
        filter.add(composed)
        #expect(filter.mayContain(composed))
        #expect(!filter.mayContain(decomposed))
    }
}
