import Testing
import UbiquityTestSupport
@testable import Ubiquity
@testable import UbiquityCore

/// `insert` with a natural key refuses a key that is alive (in the store or in the context)
/// and accepts one that was deleted or never used: the check asks the store for each new key.
/// The key itself is checked as `GlobalID(entity:key:)` checks it (ASCII keys on their bytes).
@Suite("Inserting natural keys")
struct InsertExistingKeyTests {
    @Test func aLiveKeyIsRefusedAndADeletedOneReused() throws {
        let cloud = try TestCloud(model: InsertRecordTests.model, contentName: "Records")
        let peer = try cloud.peer("a")
        let first = peer.newContext()
        let thing = try first.insert("Thing", key: "k")
        thing["score"] = .double(0.5)
        #expect(throws: StoreError.objectExists(thing.id)) { try first.insert("Thing", key: "k") }
        // The refused insert leaves the context as it was: the first object, its value, one record.
        #expect(try first.object(thing.id) === thing)
        #expect(thing["score"] == .double(0.5))
        #expect(try #require(try first.save()).inserted.map(\.id) == [thing.id])

        let second = peer.newContext()
        #expect(throws: StoreError.objectExists(thing.id)) { try second.insert("Thing", key: "k") }
        let other = try second.insert("Thing", key: "other")
        other["score"] = .double(0.1)
        try second.delete(#require(try second.object(thing.id)))
        try second.save()
        #expect(try peer.store.isDeleted(thing.id))

        let third = peer.newContext()
        let again = try third.insert("Thing", key: "k")
        again["score"] = .double(0.25)
        #expect(throws: StoreError.objectExists(other.id)) { try third.insert("Thing", key: "other") }
        // A key refused by the store is not left registered.
        #expect(try third.object(other.id)?.isInserted == false)
        try third.save()
        #expect(try peer.store.isAlive(thing.id))
    }

    /// A key inserted, deleted and inserted again in one context is one record, of the last object.
    @Test func aKeyInsertedAgainInOneContextIsOneRecord() throws {
        let cloud = try TestCloud(model: InsertRecordTests.model, contentName: "Records")
        let context = try cloud.peer("a").newContext()
        let first = try context.insert("Thing", key: "k")
        first["score"] = .double(0.5)
        let other = try context.insert("Thing", key: "other")
        other["score"] = .double(0.1)
        context.delete(first)
        let again = try context.insert("Thing", key: "k")
        again["score"] = .double(0.25)
        let log = try #require(try context.save())
        #expect(log.inserted.map(\.id) == [again.id, other.id])
        #expect(log.inserted.first?.values["score"] == .some(.double(0.25)))
    }

    /// Seeded random keys — ASCII and not, control characters, empty, 200 and 201 bytes — give
    /// the ID or the error `GlobalID(entity:key:)` gives.
    @Test(arguments: SeededGenerator.testSeeds(Array(1 ... 8)))
    func keysAreCheckedAsGlobalIDsCheckThem(seed: UInt64) throws {
        var random = SeededGenerator(seed: seed)
        let cloud = try TestCloud(model: InsertRecordTests.model, contentName: "Records")
        let context = try cloud.peer("a").newContext()
        let alphabet = Array("aZ09-_/ .~é漢\u{1}\u{7f}\u{85}\u{9f}\t")
        var keys = ["", String(repeating: "x", count: 200), String(repeating: "x", count: 201), String(repeating: "é", count: 100), String(repeating: "é", count: 101)]
        keys += (0 ..< 60).map { _ in String((0 ..< Int.random(in: 1 ... 12, using: &random)).map { _ in alphabet.randomElement(using: &random)! }) }
        for key in keys {
            let expected = Result { () throws(GlobalIDError) in try GlobalID(entity: "Thing", key: key) }
            context.rollback()
            switch expected {
            case let .success(id):
                #expect(try context.insert("Thing", key: key).id.description == id.description, "seed \(seed): key \(key.debugDescription)")
            case let .failure(error):
                #expect(throws: error, "seed \(seed): key \(key.debugDescription)") { try context.insert("Thing", key: key) }
            }
        }
    }
}
