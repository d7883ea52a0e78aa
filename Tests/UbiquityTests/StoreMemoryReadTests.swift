import Foundation
import Testing
import UbiquityBase
@testable import UbiquityCore

/// A store answers the reads every sync makes (the content epoch, the quarantine, the sent logs)
/// from memory while its connection has changed no row (`SQLiteDatabase.unchangedRead`,
/// `MetadataTable.value`). These hold it to what reading the table gives: after a write, after
/// a write rolled back, and inside a transaction that has not committed.
@Suite("A store's per-sync reads from memory")
struct StoreMemoryReadTests {
    struct Abort: Error {}

    func withStore(_ body: (String, PersistentStore) throws -> Void) throws {
        let directory = NSTemporaryDirectory() + "memory-reads-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try body(directory, try PersistentStore(path: directory + "/a.sqlite", model: .notes, peerID: "peer~a", storeName: "Store", contentName: "Notes"))
    }

    @Test func aMetadataValueIsWhatWasLastCommitted() throws {
        try withStore { _, store in
            #expect(try store.contentEpoch() == nil)
            #expect(try store.contentEpoch() == nil, "asked again")
            try store.setContentEpoch(ContentRemoval(epoch: "e1", generation: 1, date: 1))
            #expect(try store.contentEpoch() == "e1")
            #expect(try store.contentEpoch() == "e1", "asked again")
            #expect(throws: Abort.self) {
                try store.locked {
                    try store.database.transaction {
                        try store.metadata.set(.contentEpoch, "e2")
                        #expect(try store.metadata.value(.contentEpoch) == "e2", "inside the transaction, its own write")
                        throw Abort()
                    }
                }
            }
            #expect(try store.contentEpoch() == "e1", "the write rolled back")
            try store.locked { try store.metadata.remove(.contentEpoch) }
            #expect(try store.contentEpoch() == nil)
        }
    }

    @Test func anUnchangedRecordIsNotWrittenAgain() throws {
        try withStore { _, store in
            try store.recordExternalDataWaits(["peer~b 3 abc"])
            let changes = store.database.totalChanges
            try store.recordExternalDataWaits(["peer~b 3 abc"])
            #expect(store.database.totalChanges == changes, "the same record: no write")
            try store.recordExternalDataWaits([])
            #expect(store.database.totalChanges > changes)
            #expect(try store.externalDataWaits().isEmpty)
        }
    }

    @Test func theQuarantineFollowsEveryChange() throws {
        try withStore { directory, store in
            let path = directory + "/log.cdt"
            try AtomicFile.write([1], to: path)
            let file = try #require(DirectoryEntry.at(path))
            #expect(try store.quarantined().isEmpty && store.quarantineSignatures().isEmpty)
            try store.recordQuarantine(path: "a/log.cdt", file: file, reason: "bad")
            try store.recordQuarantine(path: "b/log.cdt", file: file, reason: "too far ahead", retryAfter: store.now - 1)
            #expect(try store.quarantined().map(\.path) == ["a/log.cdt", "b/log.cdt"])
            #expect(try store.quarantineSignatures() == ["a/log.cdt": file.signature], "a retry that is due no longer holds")
            #expect(try store.quarantineRecord(path: "b/log.cdt")?.reason == "too far ahead")
            #expect(throws: Abort.self) {
                try store.locked {
                    try store.database.transaction {
                        try store.quarantine.remove(path: "a/log.cdt")
                        throw Abort()
                    }
                }
            }
            #expect(try store.quarantineRecord(path: "a/log.cdt")?.reason == "bad", "the removal rolled back")
            try store.clearQuarantine(path: "a/log.cdt")
            #expect(try store.quarantineRecord(path: "a/log.cdt") == nil)
            #expect(try store.quarantined().map(\.path) == ["b/log.cdt"])
        }
    }
}
