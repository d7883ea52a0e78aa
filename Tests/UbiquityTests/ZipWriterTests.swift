import Foundation
import Testing
import UbiquityBase
import UbiquityCore
@testable import UbiquitySync
import ZIPFoundation

/// The zip writer baselines are made with, read back by ZIPFoundation (the reader every peer
/// uses), CRC-32 checked on extraction.
@Suite("Zip writer: deflated entries any zip reader opens, ZIP64 past 4 GiB")
struct ZipWriterTests {
    let folder = NSTemporaryDirectory() + "zip-writer-" + UUID().uuidString

    init() throws { try AtomicFile.makeDirectory(folder) }

    /// Bytes that compress somewhat, like a store: repeated words with random ones between.
    func storeLikeBytes(_ count: Int, seed: UInt64) -> [UInt8] {
        var random = SeededGenerator(seed: seed)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count)
        while bytes.count < count {
            if Bool.random(using: &random) {
                bytes += Array("note title body ".utf8)
            } else {
                bytes.append(UInt8.random(in: 0...255, using: &random))
            }
        }
        return Array(bytes.prefix(count))
    }

    func entries(of path: String) throws -> [String: [UInt8]] {
        let archive = try Archive(url: URL(fileURLWithPath: path), accessMode: .read)
        var contents: [String: [UInt8]] = [:]
        for entry in archive {
            var bytes: [UInt8] = []
            _ = try archive.extract(entry, skipCRC32: false) { bytes += $0 }
            contents[entry.path] = bytes
        }
        return contents
    }

    func write(_ path: String, level: Int32, zip64Threshold: UInt64 = UInt64(UInt32.max),
               _ parts: [(String, [UInt8])], file: (name: String, bytes: [UInt8])) throws {
        let source = folder + "/source-" + UUID().uuidString
        try AtomicFile.write(file.bytes, to: source)
        var zip = try ZipWriter(path: path, level: level, zip64Threshold: zip64Threshold)
        for (name, bytes) in parts { try zip.add(name: name, bytes: bytes) }
        try zip.add(name: file.name, contentsOf: source)
        try zip.finish()
    }

    @Test("entries from memory and from a file of several chunks read back byte for byte", arguments: [Int32(1), 6, 9])
    func entriesReadBack(level: Int32) throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/a.zip"
        let large = storeLikeBytes(3 * StreamingFile.chunkSize + 12_345, seed: UInt64(level))
        try write(path, level: level, [("metadata.plist", Array("<plist/>".utf8)), ("empty", [])],
                  file: ("store.sqlite", large))
        let contents = try entries(of: path)
        #expect(contents["metadata.plist"] == Array("<plist/>".utf8))
        #expect(contents["empty"] == [])
        #expect(contents["store.sqlite"] == large)
        #expect(contents.count == 3)
    }

    @Test("sizes and offsets past the ZIP64 threshold are written in ZIP64 fields and read back")
    func zip64FieldsReadBack() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/b.zip"
        // A threshold of 100 bytes puts every entry, offset and the directory past it.
        let large = storeLikeBytes(50_000, seed: 7)
        try write(path, level: 1, zip64Threshold: 100,
                  [("metadata.plist", Array(repeating: 0x41, count: 300)), ("model.plist", Array("model".utf8))],
                  file: ("store.sqlite", large))
        let contents = try entries(of: path)
        #expect(contents["metadata.plist"] == Array(repeating: 0x41, count: 300))
        #expect(contents["model.plist"] == Array("model".utf8))
        #expect(contents["store.sqlite"] == large)
        let bytes = try AtomicFile.read(path, limit: 1 << 20)
        // The ZIP64 end-of-central-directory record and its locator are there.
        #expect(bytes.indices.contains { bytes[$0...].starts(with: [0x50, 0x4B, 0x06, 0x06]) })
        #expect(bytes.indices.contains { bytes[$0...].starts(with: [0x50, 0x4B, 0x06, 0x07]) })
    }

    @Test("a level-1 archive is larger than a level-6 one by a bounded amount, and both hold the same bytes")
    func levelsAgree() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let large = storeLikeBytes(2 * StreamingFile.chunkSize, seed: 11)
        try write(folder + "/1.zip", level: 1, [], file: ("store.sqlite", large))
        try write(folder + "/6.zip", level: 6, [], file: ("store.sqlite", large))
        #expect(try entries(of: folder + "/1.zip") == entries(of: folder + "/6.zip"))
        let fast = try #require(DirectoryEntry.at(folder + "/1.zip")).size
        let small = try #require(DirectoryEntry.at(folder + "/6.zip")).size
        #expect(fast < Int64(large.count) && small <= fast)
    }

    @Test("a source that cannot be read fails with its path and leaves no half-written archive")
    func unreadableSource() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = folder + "/missing.sqlite"
        let error = #expect(throws: FileError.self) {
            try BaselineArchive.write(metadata: BaselineMetadata(author: "A", knowledge: KnowledgeVector(), previousKnowledge: KnowledgeVector(),
                                                                 modelVersionHash: "h", storeName: "s", contentName: "c", created: 0,
                                                                 storeChecksum: "", modelChecksum: "", contentEpoch: nil),
                                      model: .notes, storeFile: store, to: folder + "/c.zip")
        }
        #expect(error?.path == store)
        #expect(DirectoryEntry.at(folder + "/c.zip") == nil)
    }
}
