import Foundation
import Testing
@testable import Ubiquity
@testable import UbiquitySync
@testable import UbiquityCore
import UbiquityTestSupport

/// A file-sync engine can bring back a copy of a log after its content was removed, and bring it
/// damaged (cut short in transfer). Its author must not take its number for one of the new
/// content's: the new content would then skip numbers that every peer waits for.
@Suite("A late, damaged copy of a removed content's log")
struct LateCopyOfRemovedContentTests {
    func save(_ peer: UbiquityPeer, _ key: String) throws {
        let context = peer.newContext()
        try context.insert("Note", key: key).set("title", key)
        try context.save()
    }

    func logNumbers(in folder: String) throws -> [Int64] {
        try FileManager.default.contentsOfDirectory(atPath: folder).compactMap(TransactionLog.transactionNumber(inFileName:)).sorted()
    }

    @Test func leavesNoGapInTheNewContentsNumbers() throws {
        let cloud = try TestCloud()
        let a = try cloud.peer("a", policy: nil)
        let b = try cloud.peer("b", policy: nil)
        for key in ["old1", "old2", "old3", "old4"] { try save(a, key) }
        _ = try b.sync()
        let folder = try #require(a.location).logDirectory(of: a.peerID)
        let oldName = try #require(try FileManager.default.contentsOfDirectory(atPath: folder).first { TransactionLog.transactionNumber(inFileName: $0) == 4 })
        let oldBytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: folder + "/" + oldName)))
        // An unreadable own file counts while the content was never removed: it may be a save
        // of this content whose transfer is not done.
        try AtomicFile.write(Array(oldBytes.prefix(oldBytes.count / 2)), to: folder + "/" + TransactionLog.fileName(number: 9))
        #expect(a.ownLogs(try #require(a.location), above: 4).map(\.number) == [9])
        unlink(folder + "/" + TransactionLog.fileName(number: 9))

        try a.removeUbiquitousContent()
        _ = try b.sync()
        try save(a, "new1")
        // The copy comes back after the removal, cut short: its name says 4, its bytes say nothing.
        let copy = folder + "/" + oldName.replacingOccurrences(of: ".1.cdt", with: " 2.1.cdt")
        try AtomicFile.write(Array(oldBytes.prefix(oldBytes.count / 2)), to: copy)
        #expect(a.ownLogs(try #require(a.location), above: 1).isEmpty, "a damaged file after a removal takes no number")
        for key in ["new2", "new3"] { try save(a, key) }
        _ = try a.sync()
        _ = try b.sync()

        let numbers = try logNumbers(in: folder)
        #expect(numbers == [1, 2, 3], "the new content's logs are numbered with no gap: \(numbers)")
        #expect(try b.store.fetch(FetchRequest(entity: "Note")).map(\.id.key).sorted() == ["new1", "new2", "new3"], "B has every save of the new content")
        #expect(b.store.knowledge[a.peerID] == 3)
        a.close()
        b.close()
    }
}
