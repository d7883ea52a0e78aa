/// Where a complete raw deflate stream's last block starts and where its last block ends, in
/// bits from the stream's start (RFC 1951: bits are read from the low end of each byte).
///
/// libdeflate deflates a whole buffer into a complete stream, its last block marked final. A
/// baseline's store is deflated in blocks on every core (`ZipWriter`), and the blocks must join
/// into one stream: every block but the last has its final mark cleared and is continued at
/// the next byte by an empty stored block. Both need these two positions: a stream of one
/// block gives them from its header and its last byte (`ofSingleBlock`); in general only a walk
/// over the stream's symbols finds them (`of`: no output is produced; each symbol is looked up
/// in a table).
struct DeflateStreamShape: Equatable {
    /// The bit that marks the last block final (the first bit of its header).
    let finalBlockBit: Int
    /// The bit just after the last block's end-of-block code.
    let endBit: Int

    /// The shape of the complete stream in `bytes`, or `nil` when they are not one.
    static func of(_ bytes: UnsafeRawBufferPointer) -> DeflateStreamShape? {
        guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return nil }
        var reader = BitReader(base: base, count: bytes.count)
        var codes = BlockCodes()
        while true {
            let header = reader.consumed
            guard let final = reader.take(1), let type = reader.take(2) else { return nil }
            switch type {
            case 0:
                reader.alignToByte()
                guard let length = reader.take(16), let complement = reader.take(16), length == complement ^ 0xFFFF,
                      reader.skipBytes(Int(length)) else { return nil }
            case 1:
                guard walkSymbols(&reader, litlen: BlockCodes.fixedLitlen, distance: BlockCodes.fixedDistance) else { return nil }
            case 2:
                guard codes.readDynamic(&reader), walkSymbols(&reader, litlen: codes.litlen, distance: codes.distance) else { return nil }
            default:
                return nil
            }
            guard reader.consumed <= bytes.count * 8 else { return nil }
            if final == 1 { return DeflateStreamShape(finalBlockBit: header, endBit: reader.consumed) }
        }
    }

    /// The shape of a stream that is one block (its first block is marked final), found from
    /// its two ends without walking its symbols; `nil` when it is not one block, or its end is
    /// not told apart this way (fixed codes, an end-of-block code that fits more than one place):
    /// the caller then walks it (`of`).
    ///
    /// A block's end is its end-of-block code, the stream's last symbol; after it come only the
    /// zero bits that pad the last byte (libdeflate writes them as zeros, as zlib does). A dynamic
    /// block's header gives that code, so the end is the one place in the last byte where the
    /// code stands followed only by zeros. The true end is always such a place; a second one
    /// would need a code of zeros only (shifted, it must match itself and end in the padding),
    /// and when there are two the stream is walked. A stored block ends on its last byte.
    static func ofSingleBlock(_ bytes: UnsafeRawBufferPointer) -> DeflateStreamShape? {
        guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count >= 2 else { return nil }
        var reader = BitReader(base: base, count: bytes.count)
        guard reader.take(1) == 1, let type = reader.take(2) else { return nil }
        let total = bytes.count * 8
        switch type {
        case 0:
            reader.alignToByte()
            guard let length = reader.take(16), let complement = reader.take(16), length == complement ^ 0xFFFF,
                  5 + Int(length) == bytes.count else { return nil }
            return DeflateStreamShape(finalBlockBit: 0, endBit: total)
        case 2:
            guard let code = BlockCodes.endOfBlockCode(&reader) else { return nil }
            let headerEnd = reader.consumed
            var found: Int?
            for padding in 0..<8 {
                let end = total - padding
                guard end - code.length >= headerEnd else { break }
                guard Self.bits(base, from: end, count: padding) == 0,
                      Self.bits(base, from: end - code.length, count: code.length) == code.reversed else { continue }
                guard found == nil else { return nil }
                found = end
            }
            return found.map { DeflateStreamShape(finalBlockBit: 0, endBit: $0) }
        default:
            return nil
        }
    }

    /// `count` (at most 32) bits from bit `start`, the first the lowest.
    private static func bits(_ base: UnsafePointer<UInt8>, from start: Int, count: Int) -> Int {
        var value = 0
        for index in 0..<count {
            let bit = start + index
            value |= Int(base[bit >> 3] >> UInt8(bit & 7) & 1) << index
        }
        return value
    }

    /// Reads a block's symbols up to and including its end-of-block code. The extra bits of a
    /// length code (0–28) and a distance code (0–29) follow RFC 1951's tables; each table slot
    /// holds a code's length and its extra bits together, so a symbol and its extra bits go in
    /// one step. A refill leaves at least 48 bits: a length with its extra bits (≤ 12 + 5) and
    /// a distance with its (≤ 12 + 13) then fit without another, and the reader is checked for
    /// running past the end only when it refills.
    private static func walkSymbols(_ stream: inout BitReader, litlen: HuffmanCode, distance: HuffmanCode) -> Bool {
        // A local copy of the reader and plain pointers to the tables: the loop keeps them in
        // registers (through an `inout` or a closure's capture they went to memory every symbol).
        var reader = stream
        defer { stream = reader }
        let litlenSlots = litlen.slots, distanceSlots = distance.slots
        while true {
            if reader.available < 48 {
                reader.refill()
                if reader.overran { return false }
            }
            var symbol: Int
            let slot = litlenSlots[reader.low(HuffmanCode.tableBits)]
            if slot != 0 {
                reader.drop(HuffmanCode.bits(slot))
                symbol = HuffmanCode.symbol(slot)
                if symbol < 256 { continue }
                if symbol == 256 { return true }
                guard symbol < 257 + 29 else { return false }
            } else {
                // A code longer than the table: read bit by bit, then its extra bits.
                guard let long = litlen.decode(&reader) else { return false }
                symbol = long
                if symbol < 256 { continue }
                if symbol == 256 { return true }
                guard symbol < 257 + 29 else { return false }
                reader.dropRefilling(HuffmanCode.Alphabet.litlen.extraBits(symbol))
                if reader.available < 48 { reader.refill() }
            }
            let distanceSlot = distanceSlots[reader.low(HuffmanCode.tableBits)]
            if distanceSlot != 0 {
                guard HuffmanCode.symbol(distanceSlot) < 30 else { return false }
                reader.drop(HuffmanCode.bits(distanceSlot))
            } else {
                guard let code = distance.decode(&reader), code < 30 else { return false }
                reader.dropRefilling(HuffmanCode.Alphabet.distance.extraBits(code))
            }
        }
    }
}

/// A little-endian bit reader that reads zeros past the end and says so (`overran`).
private struct BitReader {
    let base: UnsafePointer<UInt8>
    let count: Int
    private var position = 0
    private var buffer: UInt64 = 0
    /// Bits in `buffer` not yet consumed (the walk refills below 48).
    private(set) var available = 0

    init(base: UnsafePointer<UInt8>, count: Int) {
        self.base = base
        self.count = count
    }

    /// Bits consumed so far.
    var consumed: Int { position * 8 - available }
    /// More than 8 bytes of zeros were read past the end: the stream is not whole.
    var overran: Bool { position > count + 8 }

    @inline(__always) mutating func refill() {
        if position + 8 <= count {
            // Eight bytes at once; those beyond the whole bytes taken are loaded again next time.
            buffer |= UnsafeRawPointer(base + position).loadUnaligned(as: UInt64.self).littleEndian << UInt64(available)
            position += (63 - available) >> 3
            available |= 56
            return
        }
        while available <= 56 {
            buffer |= UInt64(position < count ? base[position] : 0) << UInt64(available)
            position += 1
            available += 8
        }
    }

    /// The next `bits` (at most 57) without consuming them.
    @inline(__always) mutating func peek(_ bits: Int) -> UInt64 {
        if available < bits { refill() }
        return buffer & ((1 << UInt64(bits)) - 1)
    }

    /// The next `bits` as they stand in the buffer (the caller made sure enough are there).
    @inline(__always) func low(_ bits: Int) -> Int { Int(truncatingIfNeeded: buffer) & (1 << bits - 1) }

    @inline(__always) mutating func drop(_ bits: Int) {
        buffer >>= UInt64(bits)
        available -= bits
    }

    /// Drops `bits` (at most 57) whether or not they were read yet; past the end shows in `overran`.
    @inline(__always) mutating func dropRefilling(_ bits: Int) {
        if available < bits { refill() }
        drop(bits)
    }

    mutating func take(_ bits: Int) -> UInt64? {
        let value = peek(bits)
        drop(bits)
        return overran ? nil : value
    }

    /// Skips `count` bytes, the reader being on a byte (`alignToByte`); false past the end.
    mutating func skipBytes(_ count: Int) -> Bool {
        let buffered = available / 8
        if count <= buffered {
            drop(count * 8)
        } else {
            position += count - buffered
            buffer = 0
            available = 0
        }
        return consumed <= self.count * 8
    }

    mutating func alignToByte() { drop(available % 8) }
}

/// A canonical Huffman code (RFC 1951 §3.2.2) decoded through a table of the codes up to
/// `tableBits` long; longer ones, rare, bit by bit.
///
/// A class: its table is one allocation the walk reads through a plain pointer. The fixed
/// codes are shared by every thread and never change after they are built.
private final class HuffmanCode: @unchecked Sendable {
    /// What the code's symbols are: the walk takes a length's or a distance's extra bits with its code.
    enum Alphabet {
        case litlen, distance, precode

        /// The extra bits that follow `symbol` (RFC 1951 §3.2.5); 0 for symbols that take none or are invalid.
        func extraBits(_ symbol: Int) -> Int {
            switch self {
            case .litlen:
                let length = symbol - 257
                return length < 8 || length >= 28 ? 0 : (length - 4) >> 2
            case .distance:
                return symbol < 4 || symbol >= 30 ? 0 : (symbol - 2) >> 1
            case .precode:
                return 0
            }
        }
    }

    static let tableBits = 12
    /// Per index of `tableBits` stream bits: symbol << 16 | extra bits << 8 | code length, or 0
    /// for a longer code.
    let slots = UnsafeMutablePointer<UInt32>.allocate(capacity: 1 << tableBits)
    private var counts = [Int](repeating: 0, count: 16)
    /// Symbols by code length, then value.
    private var sorted: [Int] = []
    let alphabet: Alphabet

    init(_ alphabet: Alphabet) {
        self.alphabet = alphabet
        slots.initialize(repeating: 0, count: 1 << Self.tableBits)
    }

    deinit { slots.deallocate() }

    /// The code of these code lengths, or `nil` if they over-subscribe the code space.
    convenience init?(_ alphabet: Alphabet, lengths: [UInt8]) {
        self.init(alphabet)
        guard rebuild(lengths[...]) else { return nil }
    }

    /// A table slot's symbol, and the bits its code and extra bits take.
    @inline(__always) static func symbol(_ slot: UInt32) -> Int { Int(slot >> 16) }
    @inline(__always) static func bits(_ slot: UInt32) -> Int { Int(slot >> 8 & 0xFF) + Int(slot & 0xFF) }

    func rebuild(_ lengths: ArraySlice<UInt8>) -> Bool {
        for index in counts.indices { counts[index] = 0 }
        for length in lengths { counts[Int(length)] += 1 }
        counts[0] = 0
        var left = 1
        for length in 1...15 {
            left = left << 1 - counts[length]
            guard left >= 0 else { return false }
        }
        var offsets = [Int](repeating: 0, count: 16)
        for length in 1..<15 { offsets[length + 1] = offsets[length] + counts[length] }
        sorted = [Int](repeating: 0, count: lengths.count)
        for (symbol, length) in zip(0..., lengths) where length > 0 {
            sorted[offsets[Int(length)]] = symbol
            offsets[Int(length)] += 1
        }
        slots.update(repeating: 0, count: 1 << Self.tableBits)
        var code = 0
        var next = [Int](repeating: 0, count: 16)
        for length in 1...15 {
            code = (code + counts[length - 1]) << 1
            next[length] = code
        }
        for (symbol, length) in zip(0..., lengths) where length > 0 {
            let length = Int(length)
            let value = next[length]
            next[length] += 1
            guard length <= Self.tableBits else { continue }
            var reversed = 0
            for bit in 0..<length where value >> bit & 1 == 1 { reversed |= 1 << (length - 1 - bit) }
            let slot = UInt32(symbol) << 16 | UInt32(alphabet.extraBits(symbol)) << 8 | UInt32(length)
            for index in stride(from: reversed, to: 1 << Self.tableBits, by: 1 << length) {
                slots[index] = slot
            }
        }
        return true
    }

    @inline(__always) func decode(_ reader: inout BitReader) -> Int? {
        let slot = Int(reader.peek(15) & UInt64((1 << Self.tableBits) - 1))
        let entry = slots[slot]
        if entry != 0 {
            reader.drop(Int(entry & 0xFF))
            return reader.overran ? nil : Self.symbol(entry)
        }
        // A code longer than the table: bit by bit, the codes of each length in turn.
        var code = 0, first = 0, index = 0
        for length in 1...15 {
            guard let bit = reader.take(1) else { return nil }
            code |= Int(bit)
            let count = counts[length]
            if code - first < count { return sorted[index + code - first] }
            index += count
            first = (first + count) << 1
            code <<= 1
        }
        return nil
    }
}

/// The codes of a dynamic block, rebuilt in place block after block.
private struct BlockCodes {
    let litlen = HuffmanCode(.litlen)
    let distance = HuffmanCode(.distance)
    private let precode = HuffmanCode(.precode)
    private var lengths = [UInt8](repeating: 0, count: 288 + 32)

    static let fixedLitlen = HuffmanCode(.litlen, lengths: (0..<288).map { $0 < 144 ? 8 : $0 < 256 ? 9 : $0 < 280 ? 7 : 8 })!
    static let fixedDistance = HuffmanCode(.distance, lengths: [UInt8](repeating: 5, count: 32))!
    private static let precodeOrder = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15]

    mutating func readDynamic(_ reader: inout BitReader) -> Bool {
        guard let counts = Self.readLengths(&reader, precode: precode, into: &lengths) else { return false }
        return litlen.rebuild(lengths[0..<counts.litlen]) && distance.rebuild(lengths[counts.litlen..<(counts.litlen + counts.distance)])
    }

    /// The end-of-block code of the dynamic block whose header `reader` is at (past its first
    /// three bits), reversed as it stands in the stream, and its length; the reader is left
    /// after the header. `nil` if the header is damaged or over-subscribes its codes.
    static func endOfBlockCode(_ reader: inout BitReader) -> (reversed: Int, length: Int)? {
        var all = [UInt8](repeating: 0, count: 288 + 32)
        guard let counts = readLengths(&reader, precode: HuffmanCode(.precode), into: &all) else { return nil }
        let lengths = all[0..<counts.litlen]
        // Canonical codes (RFC 1951 §3.2.2): the first code of each length, then 256's rank among its length's.
        var perLength = [Int](repeating: 0, count: 16)
        for length in lengths { perLength[Int(length)] += 1 }
        perLength[0] = 0
        var left = 1
        for length in 1...15 {
            left = left << 1 - perLength[length]
            guard left >= 0 else { return nil }
        }
        let length = Int(lengths[256])
        var code = 0
        for shorter in 1..<length { code = (code + perLength[shorter]) << 1 }
        code += lengths[..<256].reduce(0) { $0 + ($1 == lengths[256] ? 1 : 0) }
        var reversed = 0
        for bit in 0..<length where code >> bit & 1 == 1 { reversed |= 1 << (length - 1 - bit) }
        return (reversed, length)
    }

    /// Reads a dynamic block's code lengths into `lengths`; returns how many are litlen's and distance's.
    private static func readLengths(_ reader: inout BitReader, precode: HuffmanCode, into lengths: inout [UInt8]) -> (litlen: Int, distance: Int)? {
        guard let hlit = reader.take(5), let hdist = reader.take(5), let hclen = reader.take(4) else { return nil }
        let litlenCount = Int(hlit) + 257, distanceCount = Int(hdist) + 1
        guard litlenCount <= 286, distanceCount <= 30 else { return nil }
        var precodeLengths = [UInt8](repeating: 0, count: 19)
        for index in 0..<(Int(hclen) + 4) {
            guard let length = reader.take(3) else { return nil }
            precodeLengths[Self.precodeOrder[index]] = UInt8(length)
        }
        guard precode.rebuild(precodeLengths[...]) else { return nil }
        let total = litlenCount + distanceCount
        var filled = 0
        while filled < total {
            guard let symbol = precode.decode(&reader) else { return nil }
            var repeated: UInt8 = 0, times = 1
            switch symbol {
            case 0...15:
                repeated = UInt8(symbol)
            case 16:
                guard filled > 0, let extra = reader.take(2) else { return nil }
                repeated = lengths[filled - 1]; times = 3 + Int(extra)
            case 17:
                guard let extra = reader.take(3) else { return nil }
                times = 3 + Int(extra)
            default:
                guard let extra = reader.take(7) else { return nil }
                times = 11 + Int(extra)
            }
            guard filled + times <= total else { return nil }
            for index in filled..<(filled + times) { lengths[index] = repeated }
            filled += times
        }
        guard lengths[256] > 0 else { return nil }
        return (litlenCount, distanceCount)
    }
}
