import Foundation
import Testing
@testable import Ubiquity
import UbiquityTestSupport

@Suite("A lost store is rebuilt from the container without reusing transaction numbers")
struct RebuildTests {
    @Test func aRecreatedStoreCatchesUpWithItsOwnLogsBeforeSaving() throws {
        let cloud = try TestCloud()
        var writer: UbiquityPeer? = try cloud.peer("writer")
        let reader = try cloud.peer("reader")
        for key in ["a", "b", "c"] {
            let context = writer!.newContext()
            try context.insert("Note", key: key)
            try context.save()
        }
        let storePath = writer!.store.path
        writer!.close()
        writer = nil
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: storePath + suffix) }

        let rebuilt = try cloud.peer("writer")
        #expect(rebuilt.store.knowledge[rebuilt.peerID] == 3)
        #expect(try rebuilt.store.count(FetchRequest(entity: "Note")) == 3)
        let context = rebuilt.newContext()
        try context.insert("Note", key: "d")
        let log = try #require(try context.save())
        #expect(log.transactionNumber == 4)
        _ = try reader.sync()
        #expect(try reader.store.count(FetchRequest(entity: "Note")) == 4)
        #expect(try reader.dumpText() == rebuilt.dumpText())
    }
}
