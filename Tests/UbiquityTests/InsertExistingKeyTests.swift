import Testing
import UbiquityTestSupport
@testable import Ubiquity
@testable import UbiquityCore

/// `insert` with a natural key refuses a key that is alive (in the store or in the context)
/// and accepts one that was deleted or never used: the check asks the store for each new key.
@Suite("Inserting a natural key that is alive")
struct InsertExistingKeyTests {
    @Test func aLiveKeyIsRefusedAndADeletedOneReused() throws {
        let cloud = try TestCloud(model: InsertRecordTests.model, contentName: "Records")
        let peer = try cloud.peer("a")
        let first = peer.newContext()
        let thing = try first.insert("Thing", key: "k")
        thing["score"] = .double(0.5)
        #expect(throws: StoreError.objectExists(thing.id)) { try first.insert("Thing", key: "k") }
        try first.save()

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
        try third.save()
        #expect(try peer.store.isAlive(thing.id))
    }
}
