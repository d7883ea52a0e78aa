import CLibDeflate
import CSystemZlib
import Foundation
import Testing
import UbiquityBase
@testable import UbiquitySync

/// The walk that finds where a deflate stream's last block starts and ends (the zip writer
/// clears that block's final mark and continues the stream after it), held to zlib's own
/// inflater, which stops at every block boundary when asked (`Z_BLOCK`).
@Suite("Deflate stream shape: the last block's start and end, as zlib's inflater finds them")
struct DeflateStreamShapeTests {
    /// Bytes of a skewed distribution over all 256 values: literal codes up to 15 bits long,
    /// longer than the walk's table, so its bit-by-bit path runs too.
    static func skewedBytes(_ count: Int, seed: UInt64) -> [UInt8] {
        var random = SeededGenerator(seed: seed)
        return (0..<count).map { _ in
            var value = 0
            while value < 255, Bool.random(using: &random) { value += 1 }
            return UInt8(value ^ Int.random(in: 0...1, using: &random))
        }
    }

    static let inputs: [(name: String, bytes: [UInt8])] = [
        ("empty", []),
        ("one byte", [7]),
        ("a few bytes", Array("note title".utf8)),
        ("store-like, 600 KiB", storeLikeBytes(600 << 10, seed: 41)),
        ("skewed, 300 KiB", skewedBytes(300 << 10, seed: 42)),
        ("random, 100 KiB", (0..<(100 << 10)).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 13) }),
    ]

    /// zlib's answer: the bit where the last block's header starts and the bit after its end.
    static func zlibShape(_ stream: [UInt8], expectedSize: Int) throws -> DeflateStreamShape {
        var inflater = z_stream()
        #expect(inflateInit2_(&inflater, -15, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK)
        defer { inflateEnd(&inflater) }
        var output = [UInt8](repeating: 0, count: max(1, expectedSize))
        var input = stream
        var lastBlock = 0, end: Int?
        try input.withUnsafeMutableBufferPointer { source in
            try output.withUnsafeMutableBufferPointer { target in
                inflater.next_in = source.baseAddress
                inflater.avail_in = UInt32(source.count)
                inflater.next_out = target.baseAddress
                inflater.avail_out = UInt32(target.count)
                while true {
                    let status = inflate(&inflater, Z_BLOCK)
                    guard status == Z_OK || status == Z_STREAM_END else { throw ShapeError(reason: "zlib stopped with \(status)") }
                    // A stop at a block's end (128): after the last block (64) it is the stream's
                    // end, after any other the next block's start. Bits taken in so far, less those
                    // still unread in the inflater's buffer.
                    let position = Int(inflater.total_in) * 8 - Int(inflater.data_type & 63)
                    if inflater.data_type & 128 != 0 {
                        if inflater.data_type & 64 != 0 { end = end ?? position } else { lastBlock = position }
                    }
                    if status == Z_STREAM_END { return }
                }
            }
        }
        guard let end else { throw ShapeError(reason: "zlib never stopped after the last block") }
        return DeflateStreamShape(finalBlockBit: lastBlock, endBit: end)
    }

    struct ShapeError: Error { let reason: String }

    @Test("libdeflate's streams at every level: the walk finds what zlib finds",
          arguments: [Int32(0), 1, 6, 12])
    func walkAgreesWithZlib(level: Int32) throws {
        for input in Self.inputs {
            let compressor = try #require(libdeflate_alloc_compressor(level))
            defer { libdeflate_free_compressor(compressor) }
            var stream = [UInt8](repeating: 0, count: libdeflate_deflate_compress_bound(compressor, input.bytes.count))
            let produced = input.bytes.withUnsafeBytes { source in
                stream.withUnsafeMutableBytes { libdeflate_deflate_compress(compressor, source.baseAddress, source.count, $0.baseAddress, $0.count) }
            }
            try #require(produced > 0)
            stream = Array(stream.prefix(produced))
            let walked = stream.withUnsafeBytes { DeflateStreamShape.of($0) }
            let expected = try Self.zlibShape(stream, expectedSize: input.bytes.count)
            #expect(walked == expected, "level \(level), \(input.name)")
            // A stream cut short is no stream.
            if produced > 2 {
                #expect(Array(stream.prefix(produced - 2)).withUnsafeBytes { DeflateStreamShape.of($0) } == nil, "level \(level), \(input.name), cut")
            }
        }
    }

    /// Compresses `bytes` by libdeflate at `level` into one complete raw deflate stream.
    static func compress(_ bytes: [UInt8], level: Int32) throws -> [UInt8] {
        let compressor = try #require(libdeflate_alloc_compressor(level))
        defer { libdeflate_free_compressor(compressor) }
        var stream = [UInt8](repeating: 0, count: libdeflate_deflate_compress_bound(compressor, bytes.count))
        let produced = bytes.withUnsafeBytes { source in
            stream.withUnsafeMutableBytes { libdeflate_deflate_compress(compressor, source.baseAddress, source.count, $0.baseAddress, $0.count) }
        }
        try #require(produced > 0)
        return Array(stream.prefix(produced))
    }

    @Test("a one-block stream's end, found from its header and last byte, is where the walk and zlib find it",
          arguments: [Int32(0), 1, 6, 12])
    func singleBlockAgreesWithWalk(level: Int32) throws {
        var inputs: [(name: String, bytes: [UInt8])] = Self.inputs
        for seed in UInt64(1)...40 {
            let size = [2, 9, 100, 1_000, 5_000, 30_000, 65_536][Int(seed % 7)]
            inputs.append(("store-like \(size), seed \(seed)", storeLikeBytes(size, seed: seed)))
            inputs.append(("skewed \(size), seed \(seed)", Self.skewedBytes(size, seed: seed)))
            var random = SeededGenerator(seed: seed)
            inputs.append(("random \(size), seed \(seed)", (0..<size).map { _ in UInt8.random(in: 0...255, using: &random) }))
        }
        var found = 0
        for input in inputs {
            let stream = try Self.compress(input.bytes, level: level)
            let walked = try #require(stream.withUnsafeBytes { DeflateStreamShape.of($0) }, "level \(level), \(input.name)")
            guard let fromEnds = stream.withUnsafeBytes({ DeflateStreamShape.ofSingleBlock($0) }) else { continue }
            found += 1
            #expect(fromEnds == walked, "level \(level), \(input.name)")
            #expect(fromEnds == (try Self.zlibShape(stream, expectedSize: input.bytes.count)), "level \(level), \(input.name)")
            // Only a stream that is one block has one.
            #expect(walked.finalBlockBit == 0, "level \(level), \(input.name)")
        }
        // The shortcut is taken for most of them (else the zip writer walks every block again).
        #expect(found * 2 > inputs.count, "level \(level): \(found) of \(inputs.count) found from their ends")
    }

    @Test("a damaged one-block stream is not given an end from its header")
    func damagedSingleBlock() throws {
        let stream = try Self.compress(storeLikeBytes(30_000, seed: 5), level: 1)
        #expect(stream.withUnsafeBytes { DeflateStreamShape.ofSingleBlock($0) } != nil)
        // Not final, a reserved block type, a header cut short: no shape.
        for damage in [{ (bytes: inout [UInt8]) in bytes[0] &= 0xFE }, { bytes in bytes[0] |= 0b110 }, { bytes in bytes = Array(bytes.prefix(3)) }] {
            var damaged = stream
            damage(&damaged)
            #expect(damaged.withUnsafeBytes { DeflateStreamShape.ofSingleBlock($0) } == nil)
        }
    }
}
