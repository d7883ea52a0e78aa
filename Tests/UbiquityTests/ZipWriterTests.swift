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

    /// Writes the archive; returns the SHA-256 the writer took of the file entry and the one
    /// of its source file, read again.
    @discardableResult
    func write(_ path: String, level: Int32, zip64Threshold: UInt64 = UInt64(UInt32.max), blockSize: Int = ZipWriter.defaultBlockSize,
               _ parts: [(String, [UInt8])], file: (name: String, bytes: [UInt8])) throws -> (taken: String, expected: String) {
        let source = folder + "/source-" + UUID().uuidString
        try AtomicFile.write(file.bytes, to: source)
        var zip = try ZipWriter(path: path, level: level, blockSize: blockSize, zip64Threshold: zip64Threshold)
        for (name, bytes) in parts { try zip.add(name: name, bytes: bytes) }
        let hash = try zip.add(name: file.name, contentsOf: source)
        try zip.finish()
        return (hash, try BaselineArchive.sha256Hex(ofFile: source))
    }

    /// Runs a tool, returning its exit status and what it printed.
    func run(_ tool: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: output, as: UTF8.self))
    }

    static let python = ["/usr/bin/python3", "/usr/local/bin/python3"].first { FileManager.default.isExecutableFile(atPath: $0) }
    static let unzip = ["/usr/bin/unzip", "/usr/local/bin/unzip"].first { FileManager.default.isExecutableFile(atPath: $0) }

    /// The block sizes and inputs of the parallel deflate: blocks far smaller than deflate's
    /// 32 KiB window and larger ones, many windows of blocks, a last block of one byte, blocks
    /// of a few bytes, and bytes that do not compress
    /// (stored blocks): every kind of deflate block is continued by the next.
    static let blockCases: [(name: String, size: Int, blockSize: Int, random: Bool)] = [
        ("empty", 0, 4096, false),
        ("one byte", 1, 4096, false),
        ("exactly one block", 65_536, 65_536, false),
        ("one block and one byte", 65_537, 65_536, false),
        ("exactly one window of blocks", 8 * 5_000, 5_000, false),
        ("many small blocks over many windows", 300_001, 1_000, false),
        ("many blocks larger than the window", 1_100_000, 40_000, false),
        ("incompressible, many blocks", 700_000, 50_000, true),
        ("blocks of a few bytes", 2_001, 7, false),
    ]

    @Test("an entry deflated in parallel blocks reads back byte for byte, CRC-32 and SHA-256 right",
          arguments: blockCases.indices)
    func parallelBlocksReadBack(index: Int) throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let cases = Self.blockCases[index]
        var random = SeededGenerator(seed: 19 + UInt64(index))
        let bytes = cases.random ? (0..<cases.size).map { _ in UInt8.random(in: 0...255, using: &random) }
                                 : storeLikeBytes(cases.size, seed: UInt64(index))
        let path = folder + "/blocks.zip"
        let hash = try write(path, level: 1, blockSize: cases.blockSize, [("metadata.plist", Array("<plist/>".utf8))], file: ("store.sqlite", bytes))
        let contents = try entries(of: path)
        #expect(contents["store.sqlite"] == bytes, "\(cases.name)")
        #expect(hash.taken == hash.expected, "\(cases.name)")
        if cases.random {
            // Incompressible blocks are stored by deflate: barely larger than the input.
            #expect(try #require(DirectoryEntry.at(path)).size < Int64(cases.size + cases.size / 100 + 1_000))
        }
    }

    @Test("Python's zipfile reads and CRC-checks a parallel-block archive",
          .enabled(if: python != nil, "python3 is not installed: the archive is not checked by a second reader"))
    func pythonReadsParallelBlocks() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for (index, cases) in Self.blockCases.enumerated() {
            let bytes = storeLikeBytes(cases.size, seed: 100 + UInt64(index))
            let path = folder + "/python-\(index).zip"
            let expected = try write(path, level: 1, blockSize: cases.blockSize, [("model.plist", Array("model".utf8))], file: ("store.sqlite", bytes)).expected
            let script = """
            import hashlib, sys, zipfile
            archive = zipfile.ZipFile(sys.argv[1])
            assert archive.testzip() is None
            print(hashlib.sha256(archive.read('store.sqlite')).hexdigest())
            """
            let result = try run(try #require(Self.python), ["-c", script, path])
            #expect(result.status == 0 && result.output.trimmingCharacters(in: .whitespacesAndNewlines) == expected, "\(cases.name): \(result.output)")
        }
    }

    @Test("`unzip -t` finds no error in a parallel-block archive",
          .enabled(if: unzip != nil, "unzip is not installed: the archive is not checked by a third reader"))
    func unzipTestsParallelBlocks() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for (index, cases) in Self.blockCases.enumerated() {
            let path = folder + "/unzip-\(index).zip"
            try write(path, level: 1, blockSize: cases.blockSize, [], file: ("store.sqlite", storeLikeBytes(cases.size, seed: 200 + UInt64(index))))
            let result = try run(try #require(Self.unzip), ["-t", path])
            #expect(result.status == 0 && result.output.contains("No errors detected"), "\(cases.name): \(result.output)")
        }
    }

    @Test("blocks deflated apart cost only a little over one deflate stream")
    func blocksStayCompact() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let bytes = storeLikeBytes(4 << 20, seed: 23)
        try write(folder + "/one.zip", level: 1, blockSize: 8 << 20, [], file: ("store.sqlite", bytes))
        try write(folder + "/blocks.zip", level: 1, blockSize: 256 << 10, [], file: ("store.sqlite", bytes))
        let one = try #require(DirectoryEntry.at(folder + "/one.zip")).size
        let blocks = try #require(DirectoryEntry.at(folder + "/blocks.zip")).size
        #expect(try entries(of: folder + "/blocks.zip") == entries(of: folder + "/one.zip"))
        // Sixteen blocks: each adds a stored block's marker and loses the matches into the one before.
        #expect(blocks < one + one / 50, "\(blocks) bytes in blocks vs \(one) in one stream")
    }

    @Test("entries from memory and from a file of several chunks read back byte for byte", arguments: ZipWriter.levels)
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

    @Test("the engine's fastest level makes a larger archive than its smallest, and both hold the same bytes")
    func levelsAgree() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let large = storeLikeBytes(2 * StreamingFile.chunkSize, seed: 11)
        try write(folder + "/fast.zip", level: ZipWriter.levels.lowerBound, [], file: ("store.sqlite", large))
        try write(folder + "/small.zip", level: ZipWriter.levels.upperBound, [], file: ("store.sqlite", large))
        #expect(try entries(of: folder + "/fast.zip") == entries(of: folder + "/small.zip"))
        let fast = try #require(DirectoryEntry.at(folder + "/fast.zip")).size
        let small = try #require(DirectoryEntry.at(folder + "/small.zip")).size
        #expect(fast < Int64(large.count) && small < fast)
    }

    @Test("a level the engine does not have is refused with the range it has, before any file is made")
    func unknownLevel() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/d.zip"
        let error = #expect(throws: FileError.self) { try ZipWriter(path: path, level: ZipWriter.levels.upperBound + 1) }
        #expect(error?.message.contains("\(BlockDeflater.engine) has \(ZipWriter.levels.lowerBound)–\(ZipWriter.levels.upperBound)") == true)
        #expect(DirectoryEntry.at(path) == nil)
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
