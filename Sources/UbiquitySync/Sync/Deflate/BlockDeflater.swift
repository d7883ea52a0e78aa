#if FastDeflate
import CISAL
import CLibDeflate
#endif
import CSystemZlib
#if canImport(Glibc)
import Glibc
#endif

/// Deflates one block of a zip entry as raw deflate that the entry's next block can follow:
/// every block but the entry's last ends in a full flush, which closes its deflate blocks on a
/// byte without marking them final and keeps no history, so blocks deflated on their own, in
/// any order and on any core, concatenate into one valid stream that any reader inflates.
///
/// Two engines do the work, chosen when the package is built:
/// - zlib, which every Swift-on-Linux machine has (the default build);
/// - ISA-L, with libdeflate's CRC-32, under the `FastDeflate` trait: on a store's pages it
///   deflates about twice as fast into an archive 8 % smaller (Docs/Benchmarks.md, "The two
///   deflate engines"), for apps whose rolls are large enough to care.
/// Archives of either engine are ordinary zip files that both engines' builds read.
package final class BlockDeflater {
    /// The engine compiled in, as `ubiq --version` and the benchmarks name it.
    #if FastDeflate
    package static let engine = "ISA-L"
    /// ISA-L's levels: 0 (fastest) to 3.
    package static let levels: ClosedRange<Int32> = 0...3
    /// Level 2 deflated a store's state about twice as fast as libdeflate's level 1, into an
    /// archive as small (level 1 was no faster here, and 2 % larger).
    package static let defaultLevel: Int32 = 2
    #else
    package static let engine = "zlib"
    /// zlib's levels that compress: 1 (fastest) to 9 (0 would store the bytes as they are).
    package static let levels: ClosedRange<Int32> = 1...9
    /// Level 1: zlib's fastest that compresses; a store's pages, mostly sparse and repetitive,
    /// gain about 2 % at its default level 6 for three times the time.
    package static let defaultLevel: Int32 = 1
    #endif

    /// A deflated block: `produced` bytes of `output`, owned by the caller (who deallocates it).
    struct Block {
        let output: UnsafeMutableRawBufferPointer
        let produced: Int
        let crc: UInt
        let length: Int
    }

    /// Why a block was not deflated.
    struct Failure: Error, CustomStringConvertible {
        let reason: String
        var description: String { reason }
    }

    let level: Int32
    #if FastDeflate
    private let stream = UnsafeMutablePointer<isal_zstream>.allocate(capacity: 1)
    /// ISA-L's work buffer for the level: several hundred KiB, allocated once per deflater.
    private let levelBuffer: UnsafeMutableBufferPointer<UInt8>
    #else
    private let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
    private var isInitialized = false
    #endif

    /// A deflater at `level`, which must be in `levels`.
    init(level: Int32) {
        precondition(Self.levels.contains(level), "deflate level \(level) is not in \(Self.levels)")
        self.level = level
        #if FastDeflate
        levelBuffer = .allocate(capacity: Int(ubiquity_isal_level_buffer_size(UInt32(level))))
        #else
        stream.initialize(to: z_stream())
        #endif
    }

    deinit {
        #if FastDeflate
        levelBuffer.deallocate()
        #else
        if isInitialized { deflateEnd(stream) }
        #endif
        stream.deallocate()
    }

    /// The most bytes a block of `count` bytes deflates to: at worst every 64 KiB is stored
    /// (5 bytes of header each), after a block header and a flush marker.
    static func capacity(for count: Int) -> Int {
        count + 5 * (count / 0xFFFF + 1) + 1024
    }

    /// Deflates `input`; `finish` ends the stream (the entry's last block), else a full flush.
    func deflate(_ input: UnsafeRawBufferPointer, finish: Bool) -> Result<Block, Failure> {
        let capacity = Self.capacity(for: input.count)
        let output = UnsafeMutableRawBufferPointer.allocate(byteCount: capacity, alignment: 16)
        // The engines only read the input, through a pointer C declares mutable (an empty input
        // has no address: any valid one will do, none of it is read).
        let start = UnsafeMutablePointer(mutating: UnsafeRawPointer(input.baseAddress ?? UnsafeRawPointer(output.baseAddress!))
            .assumingMemoryBound(to: UInt8.self))
        switch run(start, count: input.count, into: output, finish: finish) {
        case let .success(produced):
            return .success(Block(output: output, produced: produced, crc: Self.crc32(input), length: input.count))
        case let .failure(failure):
            output.deallocate()
            return .failure(failure)
        }
    }

    #if FastDeflate
    private func run(_ input: UnsafeMutablePointer<UInt8>, count: Int, into output: UnsafeMutableRawBufferPointer,
                     finish: Bool) -> Result<Int, Failure> {
        isal_deflate_stateless_init(stream)
        stream.pointee.level = UInt32(level)
        stream.pointee.level_buf = levelBuffer.baseAddress
        stream.pointee.level_buf_size = UInt32(levelBuffer.count)
        stream.pointee.next_in = input
        stream.pointee.avail_in = UInt32(count)
        stream.pointee.next_out = output.baseAddress!.assumingMemoryBound(to: UInt8.self)
        stream.pointee.avail_out = UInt32(output.count)
        stream.pointee.end_of_stream = finish ? 1 : 0
        stream.pointee.flush = UInt16(finish ? NO_FLUSH : FULL_FLUSH)
        let status = isal_deflate_stateless(stream)
        guard status == COMP_OK, stream.pointee.avail_in == 0 else {
            return .failure(Failure(reason: "ISA-L status \(status) at level \(level)"))
        }
        return .success(Int(stream.pointee.total_out))
    }

    static func crc32(_ bytes: UnsafeRawBufferPointer) -> UInt {
        UInt(libdeflate_crc32(0, bytes.baseAddress, bytes.count))
    }
    #else
    private func run(_ input: UnsafeMutablePointer<UInt8>, count: Int, into output: UnsafeMutableRawBufferPointer,
                     finish: Bool) -> Result<Int, Failure> {
        // Raw deflate (negative window bits: no zlib header), reset between blocks so none
        // refers back into another.
        let status = isInitialized ? deflateReset(stream)
            : deflateInit2_(stream, level, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size))
        guard status == Z_OK else { return .failure(Failure(reason: "zlib status \(status) at level \(level)")) }
        isInitialized = true
        stream.pointee.next_in = input
        stream.pointee.avail_in = uInt(count)
        stream.pointee.next_out = output.baseAddress!.assumingMemoryBound(to: Bytef.self)
        stream.pointee.avail_out = uInt(output.count)
        let result = CSystemZlib.deflate(stream, finish ? Z_FINISH : Z_FULL_FLUSH)
        let complete = finish ? result == Z_STREAM_END : result == Z_OK && stream.pointee.avail_out > 0
        guard complete, stream.pointee.avail_in == 0 else {
            return .failure(Failure(reason: "zlib status \(result) at level \(level)"))
        }
        return .success(output.count - Int(stream.pointee.avail_out))
    }

    static func crc32(_ bytes: UnsafeRawBufferPointer) -> UInt {
        // zlib takes a 32-bit length: a block is at most 1 GiB (ZipWriter's precondition).
        UInt(CSystemZlib.crc32(0, bytes.baseAddress?.assumingMemoryBound(to: Bytef.self), uInt(bytes.count)))
    }
    #endif
}
