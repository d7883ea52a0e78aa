import Foundation
import Testing
@testable import Ubiquity
import UbiquityTestSupport

@Suite("Two and three peers exchange changes")
struct TwoPeerSyncTests {
    @Test func insertsTravelBetweenTwoPeers() throws {
        let cloud = try TestCloud()
        let a = try cloud.peer("a"), b = try cloud.peer("b")
        let context = a.newContext()
        let note = try context.insert("Note")
        note["title"] = .string("Hello")
        note["pinned"] = .boolean(true)
        try context.save()
        let summary = try b.sync()
        #expect(summary.imported.applied.count == 1)
        #expect(summary.imported.changes.inserted == [note.id])
        let seen = try #require(try b.store.snapshot(of: note.id))
        #expect(seen.values["title"] == .string("Hello"))
        #expect(seen.values["pinned"] == .boolean(true))
        #expect(try a.dumpText() == b.dumpText())
    }
}
