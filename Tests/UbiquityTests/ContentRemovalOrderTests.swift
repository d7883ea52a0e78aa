import Foundation
import Testing
@testable import Ubiquity

/// Two peers remove the content one after the other, and a file-sync tool keeps the earlier
/// removal's epoch file under the name (the later one's deletions already travelled). The later
/// removal must win everywhere, or the earlier content's logs would be waited for forever.
@Suite("Concurrent content removals")
struct ContentRemovalOrderTests {
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
}
