/// Where a complete raw deflate stream's last block starts and where its last block ends, in
/// bits from the stream's start (RFC 1951: bits are read from the low end of each byte).
///
/// libdeflate deflates a whole buffer into a complete stream, its last block marked final. A
/// baseline's store is deflated in blocks on every core (`ZipWriter`), and the blocks must join
/// into one stream: every block but the last has its final mark cleared and is continued at
/// the next byte by an empty stored block. Both need these two positions, which only a walk
/// over the stream's symbols finds (no output is produced; each symbol is looked up in a table).
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

    /// Reads a block's symbols up to and including its end-of-block code. The extra bits of a
    /// length code (0–28) and a distance code (0–29) follow RFC 1951's tables, computed here.
    private static func walkSymbols(_ reader: inout BitReader, litlen: HuffmanCode, distance: HuffmanCode) -> Bool {
        while true {
            guard let symbol = litlen.decode(&reader) else { return false }
            if symbol < 256 { continue }
            if symbol == 256 { return true }
            let length = symbol - 257
            guard length < 29 else { return false }
            reader.dropRefilling(length < 8 || length == 28 ? 0 : (length - 4) >> 2)
            guard let code = distance.decode(&reader), code < 30 else { return false }
            reader.dropRefilling(code < 4 ? 0 : (code - 2) >> 1)
        }
    }
}

/// A little-endian bit reader that reads zeros past the end and says so (`overran`).
private struct BitReader {
    let base: UnsafePointer<UInt8>
    let count: Int
    private var position = 0
    private var buffer: UInt64 = 0
    private var available = 0

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
private struct HuffmanCode {
    static let tableBits = 10
    /// Per index of `tableBits` stream bits: symbol << 4 | code length, or 0 for a longer code.
    private var table = [UInt16](repeating: 0, count: 1 << tableBits)
    private var counts = [Int](repeating: 0, count: 16)
    /// Symbols by code length, then value.
    private var sorted: [Int] = []

    init() {}

    /// The code of these code lengths, or `nil` if they over-subscribe the code space.
    init?(lengths: [UInt8]) {
        guard rebuild(lengths[...]) else { return nil }
    }

    mutating func rebuild(_ lengths: ArraySlice<UInt8>) -> Bool {
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
        for index in table.indices { table[index] = 0 }
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
            for index in stride(from: reversed, to: 1 << Self.tableBits, by: 1 << length) {
                table[index] = UInt16(symbol << 4 | length)
            }
        }
        return true
    }

    @inline(__always) func decode(_ reader: inout BitReader) -> Int? {
        let slot = Int(reader.peek(15) & UInt64((1 << Self.tableBits) - 1))
        let entry = table.withUnsafeBufferPointer { $0[slot] }
        if entry != 0 {
            reader.drop(Int(entry & 15))
            return reader.overran ? nil : Int(entry >> 4)
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
    var litlen = HuffmanCode()
    var distance = HuffmanCode()
    private var precode = HuffmanCode()
    private var lengths = [UInt8](repeating: 0, count: 288 + 32)

    static let fixedLitlen = HuffmanCode(lengths: (0..<288).map { $0 < 144 ? 8 : $0 < 256 ? 9 : $0 < 280 ? 7 : 8 })!
    static let fixedDistance = HuffmanCode(lengths: [UInt8](repeating: 5, count: 32))!
    private static let precodeOrder = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15]

    mutating func readDynamic(_ reader: inout BitReader) -> Bool {
        guard let hlit = reader.take(5), let hdist = reader.take(5), let hclen = reader.take(4) else { return false }
        let litlenCount = Int(hlit) + 257, distanceCount = Int(hdist) + 1
        guard litlenCount <= 286, distanceCount <= 30 else { return false }
        var precodeLengths = [UInt8](repeating: 0, count: 19)
        for index in 0..<(Int(hclen) + 4) {
            guard let length = reader.take(3) else { return false }
            precodeLengths[Self.precodeOrder[index]] = UInt8(length)
        }
        guard precode.rebuild(precodeLengths[...]) else { return false }
        let total = litlenCount + distanceCount
        var filled = 0
        while filled < total {
            guard let symbol = precode.decode(&reader) else { return false }
            var repeated: UInt8 = 0, times = 1
            switch symbol {
            case 0...15:
                repeated = UInt8(symbol)
            case 16:
                guard filled > 0, let extra = reader.take(2) else { return false }
                repeated = lengths[filled - 1]; times = 3 + Int(extra)
            case 17:
                guard let extra = reader.take(3) else { return false }
                times = 3 + Int(extra)
            default:
                guard let extra = reader.take(7) else { return false }
                times = 11 + Int(extra)
            }
            guard filled + times <= total else { return false }
            for index in filled..<(filled + times) { lengths[index] = repeated }
            filled += times
        }
        guard lengths[256] > 0, litlen.rebuild(lengths[0..<litlenCount]),
              distance.rebuild(lengths[litlenCount..<total]) else { return false }
        return true
    }
}
