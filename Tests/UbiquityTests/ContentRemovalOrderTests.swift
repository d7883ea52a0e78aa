import Foundation
import Testing
@testable import Ubiquity
import UbiquityTestSupport

/// Content removals in awkward order: a file-sync tool that keeps the earlier of two removals,
/// and a peer that saved into removed content before it heard of the removal.
@Suite("Content removals: order and leftovers")
struct ContentRemovalOrderTests {
    /// Two peers remove the content one after the other, and a file-sync tool keeps the earlier
    /// removal's epoch file under the name (the later one's deletions already travelled). The
    /// later removal must win everywhere, or the earlier content's logs would be waited for forever.
    @Test func theLaterRemovalWinsEvenWhenTheEarlierEpochFileIsKept() throws {
        let cloud = try TestCloud()
        let a = try cloud.peer("a", policy: nil), b = try cloud.peer("b", policy: nil)
        let clock = WallClock { Date(timeIntervalSince1970: 1_700_000_000) }
        a.store.wallClock = clock
        b.store.wallClock = clock.skewed(by: 60)      // b removes a minute later
        _ = try saveNote(a, "before")
        _ = try b.sync()
        let location = try #require(a.location)

        try a.removeUbiquitousContent()
        let earlier = try AtomicFile.read(location.contentEpochPath, limit: 1 << 16)
        _ = try saveNote(a, "in the earlier removal's content")
        try b.removeUbiquitousContent()
        let later = try #require(ContentEpoch.read(location))
        // The tool keeps the earlier file: b's deletions of a's new log stand, its epoch does not.
        try AtomicFile.write(earlier, to: location.contentEpochPath)
        #expect(ContentEpoch.read(location) != later)

        let summary = try b.sync()
        #expect(!summary.contentRemoved, "b knows a later removal: it keeps its store")
        #expect(ContentEpoch.read(location) == later, "and writes its epoch again")
        _ = try saveNote(b, "after both")
        let reset = try a.sync()
        #expect(reset.contentRemoved, "a started over in the later removal's content")
        _ = try a.sync()
        _ = try b.sync()
        #expect(try a.mergeStateText() == b.mergeStateText())
        #expect(try a.store.count(FetchRequest(entity: "Note")) == 1)
        #expect(try a.store.isAlive(GlobalID(entity: "Note", key: "after both")))
    }

    /// A peer saves after another removed the content but before it heard of it; its store is
    /// then lost. The rebuilt store starts in the new content: its own logs of the removed one
    /// are no reason to refuse opening (they are not this content's), and nobody applies them.
    @Test func aRebuiltStoreIgnoresItsOwnLogsOfRemovedContent() throws {
        let cloud = try TestCloud()
        let a = try cloud.peer("a", policy: nil), b = try cloud.peer("b", policy: nil)
        _ = try saveNote(a, "one")
        _ = try b.sync()
        try b.removeUbiquitousContent()
        _ = try saveNote(a, "unaware")                 // written into the cloud, in the removed content
        _ = try saveNote(a, "unaware too")
        let path = a.store.path
        a.close()
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }

        let rebuilt = try cloud.peer("a", policy: nil)
        _ = try saveNote(rebuilt, "new content")
        _ = try b.sync()
        _ = try rebuilt.sync()
        #expect(try noteKeys(b) == ["new content"], "the removed content's saves are never applied")
        #expect(try rebuilt.mergeStateText() == b.mergeStateText())
        rebuilt.close()
    }

    /// A peer removes the content before the epoch file of a later removal has reached it, while
    /// a log of that later content already has. Its removal is the earlier and loses; the log
    /// must still be there for it, since its author, which rebuilt its store since, keeps no
    /// copy to write it again from (fuzz seed 400 at 1,500 steps lost it so).
    @Test func aRemovalLeavesTheLogsOfAContentItHasNotHeardOf() throws {
        let cloud = try TestCloud()
        var a = try cloud.peer("a", policy: nil)
        let b = try cloud.peer("b", policy: nil)
        _ = try saveNote(a, "before")
        _ = try b.sync()
        let location = try #require(a.location)
        try a.removeUbiquitousContent()
        try a.removeUbiquitousContent()                    // generation 2
        _ = try saveNote(a, "in the later content")
        // a rebuilds its store: it imports its own log again and keeps no copy of it.
        let path = a.store.path
        a.close()
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        a = try cloud.peer("a", policy: nil)
        _ = try a.sync()
        #expect(try noteKeys(a) == ["in the later content"])

        // b hears of neither removal (the epoch file is late), only the log has come; it removes.
        let later = try AtomicFile.read(location.contentEpochPath, limit: 1 << 16)
        unlink(location.contentEpochPath)
        try b.removeUbiquitousContent()                    // generation 1: the earlier removal
        #expect(location.currentContentRemoval?.generation == 1)
        try AtomicFile.write(later, to: location.contentEpochPath)

        #expect(try b.sync().contentRemoved, "b follows the later removal")
        _ = try a.sync()
        _ = try b.sync()
        #expect(try noteKeys(b) == ["in the later content"], "the later content's save reached b")
        #expect(try a.mergeStateText() == b.mergeStateText())
        a.close()
    }

    /// A peer with a slow clock removes the content after it saw another removal: its removal
    /// is the later one (it counts one more), whatever the dates say.
    @Test func aRemovalMadeAfterSeeingAnotherWinsWhateverTheClocks() throws {
        let cloud = try TestCloud()
        let a = try cloud.peer("a", policy: nil), b = try cloud.peer("b", policy: nil)
        let clock = WallClock { Date(timeIntervalSince1970: 1_700_000_000) }
        a.store.wallClock = clock
        b.store.wallClock = clock.skewed(by: -7_200)      // two hours slow
        _ = try saveNote(a, "before")
        _ = try b.sync()
        try a.removeUbiquitousContent()
        _ = try b.sync()                                   // b starts over in a's removal
        try b.removeUbiquitousContent()                    // and removes again, dated two hours earlier
        let later = try #require(a.location?.currentContentRemoval)
        #expect(later.generation == 2)
        #expect(try a.sync().contentRemoved, "a follows b's removal")
        #expect(a.location?.currentContentRemoval?.epoch == later.epoch, "nobody writes a's removal back")
        _ = try saveNote(a, "after")
        _ = try b.sync()
        #expect(try noteKeys(b) == ["after"])
    }
}
