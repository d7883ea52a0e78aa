import Foundation
import Testing
import UbiquityBase
import UbiquityCore
@testable import UbiquitySync
import ZIPFoundation

/// A baseline's store entry inflated whole (`InflatedStore`, zlib or libdeflate, found through
/// `ZipDirectoryReader`) must give exactly what ZIPFoundation's streaming inflate gives, and
/// anything unusual or damaged must leave the choice to the streaming way and its errors.
@Suite("Inflated store: the whole-buffer inflate of a baseline's store agrees with the streaming one")
struct InflatedStoreTests {
    let folder = NSTemporaryDirectory() + "inflated-store-" + UUID().uuidString

    init() throws { try AtomicFile.makeDirectory(folder) }

    /// Writes a baseline-like archive holding `store` (after a metadata entry, so the store's
    /// header is not at offset 0); returns its path and the store's SHA-256.
    func archive(_ store: [UInt8], blockSize: Int = ZipWriter.defaultBlockSize, zip64Threshold: UInt64 = UInt64(UInt32.max),
                 name: String = "a.zip") throws -> (path: String, checksum: String) {
        let source = folder + "/source-" + UUID().uuidString
        try AtomicFile.write(store, to: source)
        let path = folder + "/" + name
        var zip = try ZipWriter(path: path, level: 1, blockSize: blockSize, zip64Threshold: zip64Threshold)
        try zip.add(name: BaselineArchive.metadataName, bytes: Array("<plist/>".utf8))
        let checksum = try zip.add(name: BaselineArchive.storeName, contentsOf: source)
        try zip.finish()
        return (path, checksum)
    }

    func inflate(_ path: String, checksum: String, maximumBytes: Int = InflatedStore.maximumBytes) throws -> [UInt8]? {
        let descriptor = try AtomicFile.openRegularFile(path)
        defer { close(descriptor) }
        return try InflatedStore.inflate(descriptor: descriptor, entryName: BaselineArchive.storeName, checksum: checksum,
                                         maximumBytes: maximumBytes).map { Array($0.bytes) }
    }

    @Test("sizes, blocks and ZIP64 fields: the whole inflate gives the bytes ZIPFoundation streams",
          arguments: [(0, 4096, false), (1, 4096, false), (300_001, 1_000, false), (1_100_000, 40_000, false),
                      (700_000, 50_000, true), (50_000, 4096, true),
                      // From 2 MiB the buffers are whole huge pages, aligned and advised.
                      (2_097_152, 200_000, false), (5_000_001, 300_000, true)] as [(Int, Int, Bool)])
    func agreesWithStreaming(size: Int, blockSize: Int, zip64: Bool) throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = storeLikeBytes(size, seed: UInt64(size))
        let made = try archive(store, blockSize: blockSize, zip64Threshold: zip64 ? 100 : UInt64(UInt32.max))
        let whole = try #require(try inflate(made.path, checksum: made.checksum), "size \(size): not inflated whole")
        let reader = try Archive(url: URL(fileURLWithPath: made.path), accessMode: .read)
        var streamed: [UInt8] = []
        _ = try reader.extract(try #require(reader[BaselineArchive.storeName]), skipCRC32: false) { streamed += $0 }
        #expect(whole == store)
        #expect(whole == streamed)
    }

    @Test("a store that does not match its checksum is refused with the streaming way's message")
    func checksumMismatch() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let made = try archive(storeLikeBytes(100_000, seed: 3))
        let error = #expect(throws: BaselineError.self) { try inflate(made.path, checksum: String(repeating: "0", count: 64)) }
        #expect(error == .unreadable("store.sqlite does not match its checksum"))
    }

    @Test("above the size bound, truncated, or without the entry: nil, so the caller streams it")
    func unusualArchivesAreLeftToStreaming() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = storeLikeBytes(200_000, seed: 5)
        let made = try archive(store)
        #expect(try inflate(made.path, checksum: made.checksum, maximumBytes: store.count - 1) == nil)
        let descriptor = try AtomicFile.openRegularFile(made.path)
        #expect(ZipDirectoryReader.locate("model.plist", descriptor: descriptor) == nil)
        close(descriptor)
        // Truncated: the end record is gone.
        let bytes = try AtomicFile.read(made.path, limit: 1 << 24)
        let truncated = folder + "/truncated.zip"
        try AtomicFile.write(Array(bytes.prefix(bytes.count / 2)), to: truncated)
        #expect(try inflate(truncated, checksum: made.checksum) == nil)
        // Damaged inside the deflated bytes: the inflater refuses them (or they fail the checksum).
        var damaged = bytes
        for index in stride(from: 200, to: bytes.count / 2, by: 997) { damaged[index] ^= 0x5A }
        let damagedPath = folder + "/damaged.zip"
        try AtomicFile.write(damaged, to: damagedPath)
        let result = Result { try inflate(damagedPath, checksum: made.checksum) }
        switch result {
        case let .success(inflated): #expect(inflated == nil)
        case let .failure(error): #expect(error as? BaselineError == .unreadable("store.sqlite does not match its checksum"))
        }
    }

    @Test("extracting a baseline whole or streamed writes the same state file; a damaged one fails the same way both ways")
    func extractWholeOrStreamed() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = storeLikeBytes(1_500_000, seed: 9)
        let made = try archive(store, blockSize: 100_000)
        let metadata = BaselineMetadata(author: "A", knowledge: KnowledgeVector(), previousKnowledge: KnowledgeVector(),
                                        modelVersionHash: "m", storeName: "S", contentName: "C", created: 0,
                                        storeChecksum: made.checksum, modelChecksum: "", contentEpoch: nil)
        let whole = try BaselineArchive.extractStore(made.path, metadata: metadata, into: folder + "/whole", sealing: .none, recentlyVerified: nil)
        let streamed = try BaselineArchive.extractStore(made.path, metadata: metadata, into: folder + "/streamed", sealing: .none,
                                                        maximumWholeBytes: 0, recentlyVerified: nil)
        #expect(try AtomicFile.read(whole, limit: 1 << 24) == store)
        #expect(try AtomicFile.read(streamed, limit: 1 << 24) == store)
        var wrong = metadata
        wrong.storeChecksum = String(repeating: "a", count: 64)
        for maximum in [InflatedStore.maximumBytes, 0] {
            let error = #expect(throws: BaselineError.self) {
                try BaselineArchive.extractStore(made.path, metadata: wrong, into: folder + "/wrong-\(maximum)", sealing: .none,
                                                 maximumWholeBytes: maximum, recentlyVerified: nil)
            }
            #expect(error == .unreadable("store.sqlite does not match its checksum"))
            #expect(!FileManager.default.fileExists(atPath: folder + "/wrong-\(maximum)/store.sqlite"))
        }
    }
}

extension InflatedStoreTests {
    func metadata(checksum: String) -> BaselineMetadata {
        BaselineMetadata(author: "A", knowledge: KnowledgeVector(), previousKnowledge: KnowledgeVector(), modelVersionHash: "m",
                         storeName: "S", contentName: "C", created: 0, storeChecksum: checksum, modelChecksum: "", contentEpoch: nil)
    }

    @Test("the catalog's check keeps the inflated store and the join writes it out; a file changed meanwhile is inflated anew")
    func verifiedStoreIsHandedToTheJoin() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let first = storeLikeBytes(400_000, seed: 31), second = storeLikeBytes(300_000, seed: 32)
        let made = try archive(first, name: "baseline.zip")
        let kept = RecentlyVerifiedStore()
        try BaselineArchive.verifyStore(made.path, metadata: metadata(checksum: made.checksum), sealing: .none, recentlyVerified: kept)
        let signature = try #require(DirectoryEntry.at(made.path)).signature
        let key = RecentlyVerifiedStore.key(path: made.path, signature: signature, checksum: made.checksum)
        #expect(kept.take(key: RecentlyVerifiedStore.key(path: made.path, signature: signature, checksum: "other")) == nil)
        try BaselineArchive.verifyStore(made.path, metadata: metadata(checksum: made.checksum), sealing: .none, recentlyVerified: kept)
        let extracted = try BaselineArchive.extractStore(made.path, metadata: metadata(checksum: made.checksum), into: folder + "/join-1",
                                                         sealing: .none, recentlyVerified: kept)
        #expect(try AtomicFile.read(extracted, limit: 1 << 24) == first)
        #expect(kept.take(key: key) == nil, "handed over once")

        // Verified, then replaced under the same path: the join reads the file that is there now.
        try BaselineArchive.verifyStore(made.path, metadata: metadata(checksum: made.checksum), sealing: .none, recentlyVerified: kept)
        let replacement = try archive(second, name: "replacement.zip")
        #expect(rename(replacement.path, made.path) == 0)
        let error = #expect(throws: BaselineError.self) {
            try BaselineArchive.extractStore(made.path, metadata: metadata(checksum: made.checksum), into: folder + "/join-2",
                                             sealing: .none, recentlyVerified: kept)
        }
        #expect(error == .unreadable("store.sqlite does not match its checksum"))
        let now = try BaselineArchive.extractStore(made.path, metadata: metadata(checksum: replacement.checksum), into: folder + "/join-3",
                                                   sealing: .none, recentlyVerified: kept)
        #expect(try AtomicFile.read(now, limit: 1 << 24) == second)
    }
}
