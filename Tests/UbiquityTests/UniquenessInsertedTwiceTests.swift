import Foundation
import Testing
@testable import Ubiquity
import UbiquityTestSupport

/// One global ID inserted by two peers with different constrained values is one object: when
/// one insert collides, the whole object loses, whichever insert a peer held first
/// (Docs/SyncSemantics.md, uniqueness constraints).
@Suite("Uniqueness constraints over one ID inserted twice")
struct UniquenessInsertedTwiceTests {
    /// Peer a inserts `Person/g` with x, peer b `Person/g` with y (one object, by its natural
    /// key), peer c `Person/a0` with x: g's insert of x makes g one with a0, whichever of g's
    /// inserts a peer held first, so every peer ends with a0 alone.
    @Test func anIDInsertedTwiceLosesWholeWhateverArrivedFirst() throws {
        for order in [[1, 2, 0], [0, 2, 1], [2, 1, 0]] {
            let cloud = try TestCloud(model: UniquenessConstraintTests.model, contentName: "People")
            let peers = try ["a", "b", "c"].map { try cloud.peer($0) }
            defer { for peer in peers { peer.close() } }
            for (peer, key, email) in [(peers[0], "g", "x"), (peers[1], "g", "y"), (peers[2], "a0", "x")] {
                let context = peer.newContext()
                try context.insert("Person", key: key).set("email", email)
                try context.save()
            }
            for index in order { _ = try peers[index].sync() }
            for _ in 0..<2 { for peer in peers { _ = try peer.sync() } }
            let state = try peers[0].mergeStateText()
            for peer in peers {
                #expect(try peer.mergeStateText() == state, "order \(order): every peer alike")
                #expect(try peer.store.fetch(FetchRequest(entity: "Person")).map(\.id) == [try GlobalID("Person/a0")], "order \(order)")
            }
        }
    }
}
