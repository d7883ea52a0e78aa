import Foundation
import Testing
@testable import Ubiquity
#if canImport(Glibc)
import Glibc
#endif

/// Garbage collection keeps the receipts it decoded (`ReceiptCache`): a receipt rewritten by
/// another process or peer, in place or replaced, at any moment, is read anew.
@Suite("Garbage collector's receipts")
struct GarbageCollectorReceiptTests {
    let root = NSTemporaryDirectory() + "ubiquity-receipts-" + UUID().uuidString
    var location: ContainerLocation {
        ContainerLocation(cloud: root, identityToken: "token", containerIdentifier: "iCloud.receipts", contentURL: "CoreData",
                          contentName: "Notes", modelHash: "hashA")
    }

    /// A receipt of `p1` whose knowledge of `p1` is `number` (one digit: every version has one size).
    func bytes(_ number: Int64) -> [UInt8] {
        let receipt = Receipt(peerID: "p1", knowledge: KnowledgeVector(["p1": number]), date: 100, modelVersionHash: "hashA")
        return PlistSeam.encode(receipt.plistValue, format: .binary)
    }

    /// Overwrites the file in place: same inode, same size, and its old modification time put back.
    func overwriteInPlace(_ path: String, with bytes: [UInt8]) throws {
        let before = try #require(DirectoryEntry.at(path))
        let descriptor = open(path, O_WRONLY)
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        #expect(bytes.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) } == bytes.count)
        let seconds = before.modificationTime.rounded(.down)
        var times = [timespec(tv_sec: Int(seconds), tv_nsec: Int((before.modificationTime - seconds) * 1e9)),
                     timespec(tv_sec: Int(seconds), tv_nsec: Int((before.modificationTime - seconds) * 1e9))]
        #expect(futimens(descriptor, &times) == 0)
    }

    @Test func aReceiptChangedAfterItWasKeptIsReadAnew() throws {
        defer { try? FileManager.default.removeItem(atPath: root) }
        let path = location.receiptPath(of: "p1")
        let receipts = ReceiptCache() // the test's own, as each peer's location holds one
        try AtomicFile.makeDirectory((path as NSString).deletingLastPathComponent)
        try AtomicFile.write(bytes(3), to: path)
        // Settled: the cache keeps it.
        Thread.sleep(forTimeInterval: DirectoryEntry.settlingTime * 2)
        #expect(receipts.receipt(at: path, of: location, limit: 1 << 20)?.knowledge["p1"] == 3)
        #expect(receipts.receipt(at: path, of: location, limit: 1 << 20)?.knowledge["p1"] == 3)
        // Replaced, as a peer's export or a file-sync tool does it.
        try AtomicFile.write(bytes(4), to: path)
        #expect(receipts.receipt(at: path, of: location, limit: 1 << 20)?.knowledge["p1"] == 4)
        // Rewritten in place with the same size and modification time.
        Thread.sleep(forTimeInterval: DirectoryEntry.settlingTime * 2)
        #expect(receipts.receipt(at: path, of: location, limit: 1 << 20)?.knowledge["p1"] == 4)
        try overwriteInPlace(path, with: bytes(5))
        #expect(receipts.receipt(at: path, of: location, limit: 1 << 20)?.knowledge["p1"] == 5)
        // Rewritten in place again at once (within one tick of the kernel's clock, perhaps).
        try overwriteInPlace(path, with: bytes(6))
        #expect(receipts.receipt(at: path, of: location, limit: 1 << 20)?.knowledge["p1"] == 6)
        // Replaced by the same bytes and then by others, each at once (unsettled): the same
        // bytes give the receipt kept, other bytes a new one.
        try AtomicFile.write(bytes(6), to: path)
        #expect(receipts.receipt(at: path, of: location, limit: 1 << 20)?.knowledge["p1"] == 6)
        try AtomicFile.write(bytes(7), to: path)
        #expect(receipts.receipt(at: path, of: location, limit: 1 << 20)?.knowledge["p1"] == 7)
        // Gone: none.
        unlink(path)
        #expect(receipts.receipt(at: path, of: location, limit: 1 << 20) == nil)
    }

    /// A sync asks for receipts through its listing (the file asked in the listed folder): it
    /// gets what a lookup by path gives, whatever happened to the file since the listing.
    @Test func aListedReceiptIsTheOneItsPathGives() throws {
        defer { try? FileManager.default.removeItem(atPath: root) }
        let path = location.receiptPath(of: "p1")
        let receipts = ReceiptCache()
        let folder = (path as NSString).deletingLastPathComponent
        try AtomicFile.makeDirectory(folder)
        func listed() throws -> ContainerEntry {
            try #require(ContainerEntry.list(folder, as: .logs, of: location).first { $0.kind == .receipt })
        }
        func both(_ entry: ContainerEntry) -> (listed: Int64?, byPath: Int64?) {
            (receipts.receipt(listed: entry, of: location, limit: 1 << 20)?.knowledge["p1"],
             receipts.receipt(at: path, of: location, limit: 1 << 20)?.knowledge["p1"])
        }
        try AtomicFile.write(bytes(3), to: path)
        Thread.sleep(forTimeInterval: DirectoryEntry.settlingTime * 2)
        let entry = try listed()
        #expect(both(entry) == (3, 3))
        #expect(both(entry) == (3, 3))
        // Replaced after the listing, then rewritten in place once settled: read anew each time.
        try AtomicFile.write(bytes(4), to: path)
        #expect(both(entry) == (4, 4))
        Thread.sleep(forTimeInterval: DirectoryEntry.settlingTime * 2)
        #expect(both(try listed()) == (4, 4))
        try overwriteInPlace(path, with: bytes(5))
        #expect(both(entry) == (5, 5))
        // Gone since the listing: none.
        unlink(path)
        #expect(both(entry) == (nil, nil))
    }

    @Test func aReceiptBehindALinkIsNeverRead() throws {
        defer { try? FileManager.default.removeItem(atPath: root) }
        let elsewhere = root + "-elsewhere"
        defer { try? FileManager.default.removeItem(atPath: elsewhere) }
        let path = location.receiptPath(of: "p1")
        let logFolder = (path as NSString).deletingLastPathComponent
        try AtomicFile.makeDirectory(elsewhere)
        try AtomicFile.write(bytes(3), to: elsewhere + "/" + (path as NSString).lastPathComponent)
        try AtomicFile.makeDirectory((logFolder as NSString).deletingLastPathComponent)
        #expect(symlink(elsewhere, logFolder) == 0)
        #expect(ReceiptCache().receipt(at: path, of: location, limit: 1 << 20) == nil)
    }
}
