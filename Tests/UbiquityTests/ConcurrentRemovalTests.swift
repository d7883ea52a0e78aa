import Foundation
import Testing
@testable import Ubiquity
import UbiquityTestSupport

/// Two content removals at once, as two processes on one container folder make them: each
/// removal reads the epoch file before the other has written its own. Both removals clear what
/// came before either; what either device saved after its own removal is never lost.
@Suite("Two content removals at once")
struct ConcurrentRemovalTests {
    /// Two peers that hold "before", their clocks a minute apart: the removal dated later wins.
    func twoPeers(_ cloud: TestCloud, aDatedEarlier: Bool) throws -> (UbiquityPeer, UbiquityPeer) {
        let a = try cloud.peer("a", policy: nil), b = try cloud.peer("b", policy: nil)
        let clock = WallClock { Date(timeIntervalSince1970: 1_700_000_000) }
        a.store.wallClock = aDatedEarlier ? clock : clock.skewed(by: 60)
        b.store.wallClock = aDatedEarlier ? clock.skewed(by: 60) : clock
        _ = try saveNote(a, "before")
        _ = try b.sync()
        return (a, b)
    }

    func converge(_ peers: [UbiquityPeer]) throws {
        for _ in 0..<2 { for peer in peers { _ = try peer.sync() } }
    }

    /// b's removal has read the epoch file when a's removal completes and a saves; then b's
    /// completes (its epoch file replaces a's) and b saves. Whichever removal wins, the save the
    /// other device made after its own removal reaches both.
    @Test(arguments: [true, false])
    func aSaveAfterTheDevicesOwnRemovalSurvivesTheOther(aDatedEarlier: Bool) throws {
        let cloud = try TestCloud()
        let (a, b) = try twoPeers(cloud, aDatedEarlier: aDatedEarlier)
        let plan = try b.planContentRemoval()
        try a.removeUbiquitousContent()
        _ = try saveNote(a, "after a's removal")
        try b.removeContent(as: plan)
        _ = try saveNote(b, "after b's removal")
        #expect(a.location?.currentContentRemoval?.generation == 1, "b's removal did not know a's")

        // a syncs first: when a's removal won, a writes its epoch again and b carries.
        let first = try a.sync(), second = try b.sync()
        let loser = aDatedEarlier ? first : second, winner = aDatedEarlier ? second : first
        #expect(loser.contentRemoved && loser.carried == 1, "\(loser.line)")
        #expect(loser.line.hasPrefix("content removed by another peer at the same time as here"), "\(loser.line)")
        #expect(winner.carried == nil && !winner.contentRemoved, "\(winner.line)")
        try converge([a, b])
        #expect(try noteKeys(a) == ["after a's removal", "after b's removal"], "nothing saved after either removal is lost")
        #expect(try a.mergeStateText() == b.mergeStateText())
    }

    /// The loser's content held a third device's save too, and that device never syncs again:
    /// the loser carries what its store holds, so that save is not lost either.
    @Test func theLoserCarriesWhatItsStoreHoldsOfItsContent() throws {
        let cloud = try TestCloud()
        let (a, b) = try twoPeers(cloud, aDatedEarlier: true)
        let c = try cloud.peer("c", policy: nil)
        c.store.wallClock = a.store.wallClock
        _ = try c.sync()
        let plan = try b.planContentRemoval()
        try a.removeUbiquitousContent()
        #expect(try c.sync().contentRemoved)
        _ = try saveNote(c, "c after a's removal")
        _ = try a.sync()
        #expect(try noteKeys(a) == ["c after a's removal"], "a imported c's save")
        try b.removeContent(as: plan)
        c.close()

        try converge([a, b])
        #expect(try noteKeys(a) == ["c after a's removal"])
        #expect(try noteKeys(b) == ["c after a's removal"])
        #expect(try a.mergeStateText() == b.mergeStateText())
    }

    /// What is carried keeps its relationships and its order: an ordered to-many's members
    /// arrive where they were (Playlists.plist: Playlist.songs is ordered).
    @Test func carriedObjectsKeepTheirRelationshipsAndOrder() throws {
        let ordered = OrderedRelationshipTests()
        let cloud = try ordered.cloud()
        let a = try cloud.peer("a", policy: nil), b = try cloud.peer("b", policy: nil)
        let clock = WallClock { Date(timeIntervalSince1970: 1_700_000_000) }
        a.store.wallClock = clock
        b.store.wallClock = clock.skewed(by: 60)
        let plan = try b.planContentRemoval()
        try a.removeUbiquitousContent()
        try ordered.insert(a, [("c", 0)])
        try ordered.insert(a, [("a", 1)])
        try ordered.insert(a, [("b", 2)])
        try b.removeContent(as: plan)

        try converge([a, b])
        #expect(try ordered.order(b) == ["c", "a", "b"])
        #expect(try a.mergeStateText() == b.mergeStateText())
    }

    /// A removal made after seeing another is not concurrent with it: what was saved in the
    /// content it removed goes, as always.
    @Test func aRemovalThatKnewTheOtherClearsWhatWasSavedBeforeIt() throws {
        let cloud = try TestCloud()
        let (a, b) = try twoPeers(cloud, aDatedEarlier: false)
        try a.removeUbiquitousContent()
        _ = try saveNote(a, "after a's removal, before b's")
        let plan = try b.planContentRemoval()
        try b.removeContent(as: plan)
        _ = try saveNote(b, "after b's removal")

        try converge([a, b])
        #expect(try noteKeys(a) == ["after b's removal"])
        #expect(try a.mergeStateText() == b.mergeStateText())
    }
}
