/// Writes `bplist00` files.
///
/// One walk over the value tree assigns object numbers (pre-order, so the top object is 0)
/// and writes each scalar leaf the first time it is seen: every string, number, boolean,
/// date, data, UID and null value appears once however often it is used, so keys repeated across
/// thousands of records cost one object each. Containers are never shared; they are written
/// after the walk, when the object count and hence the reference width are known. Objects
/// may appear in the file in any order because the offset table maps numbers to positions.
/// Dictionary keys are written in UTF-8 byte order so equal values encode to equal bytes.
struct BinaryPlistWriter {
    /// Seconds from 1970-01-01 to 2001-01-01, the epoch of binary plist dates.
    static let epochDelta: Double = 978_307_200

    /// A container waiting to be written: its object number and its children's numbers in
    /// `refs[start ..< start + count]` (dictionaries: `count` keys, then `count` values).
    private struct Container {
        var object: Int
        var marker: UInt8
        var start: Int
        var count: Int
    }

    /// File offset of every object by number (containers filled in at the end).
    private var offsets: [Int] = []
    private var containers: [Container] = []
    private var refs: [Int] = []
    /// Deduplication: numbers and dates by bit pattern (so 0 and -0 stay distinct), strings
    /// by their exact scalars and data by value, with a small direct-mapped cache in front of
    /// the string table because the same few dictionary keys recur in every record. Strings
    /// are never shared by `String`'s `==`: two canonically equivalent texts (an é precomposed
    /// and decomposed) would become one object, and the file would no longer say what was given.
    private var numbers = ScalarTable()
    private(set) var strings: [ExactString: Int] = [:]
    private var blobs: [[UInt8]: Int] = [:]
    private var booleans: (false: Int, true: Int) = (-1, -1)
    private var recentKeys = [(key: String, index: Int)](repeating: ("", -1), count: 64)
    private var out: [UInt8] = []

    static func encode(_ value: PlistValue) -> [UInt8] {
        var writer = started()
        _ = writer.flatten(value)
        return writer.finish()
    }

    // MARK: Walking the tree

    mutating func flatten(_ value: PlistValue) -> Int {
        switch value {
        case let .array(elements):
            let index = offsets.count
            offsets.append(0)
            let start = refs.count
            containers.append(Container(object: index, marker: 0xA0, start: start, count: elements.count))
            refs.append(contentsOf: repeatElement(0, count: elements.count))
            for (i, element) in elements.enumerated() {
                refs[start + i] = flatten(element)
            }
            return index
        case let .dictionary(dictionary):
            let index = offsets.count
            offsets.append(0)
            let start = refs.count
            let count = dictionary.count
            containers.append(Container(object: index, marker: 0xD0, start: start, count: count))
            refs.append(contentsOf: repeatElement(0, count: 2 * count))
            let sorted = dictionary.sorted { Self.utf8Precedes($0.key, $1.key) }
            for (i, entry) in sorted.enumerated() {
                refs[start + i] = key(entry.key)
                refs[start + count + i] = flatten(entry.value)
            }
            return index
        case let .string(s): return string(s)
        case let .integer(i): return number(1, UInt64(bitPattern: i), value)
        case let .unsignedInteger(u):
            // Values that fit in Int64 are the same plist integer; keep one representation.
            if u <= UInt64(Int64.max) { return number(1, u, .integer(Int64(u))) }
            return number(2, u, value)
        case let .real(d): return number(3, d.bitPattern, value)
        case let .date(d): return number(4, d.bitPattern, value)
        case let .boolean(b):
            if b {
                if booleans.true < 0 { booleans.true = emit(value) }
                return booleans.true
            }
            if booleans.false < 0 { booleans.false = emit(value) }
            return booleans.false
        case let .data(bytes):
            let found = Self.claim(&blobs[bytes, default: -1], offsets.count)
            if found == offsets.count { _ = emit(value) }
            return found
        case let .uid(u): return number(5, u, value)
        case .null: return number(6, 0, value)
        }
    }

    /// Writes a new scalar object now and returns its number.
    private mutating func emit(_ value: PlistValue) -> Int {
        offsets.append(out.count)
        writeScalar(value)
        return offsets.count - 1
    }

    private mutating func number(_ tag: UInt8, _ bits: UInt64, _ value: PlistValue) -> Int {
        let found = numbers.findOrInsert(tag: tag, bits: bits, index: offsets.count)
        if found == offsets.count { _ = emit(value) }
        return found
    }

    private mutating func string(_ s: String) -> Int {
        // One hash lookup: claim the slot for a new object unless the string is known.
        let found = Self.claim(&strings[ExactString(s), default: -1], offsets.count)
        if found == offsets.count {
            offsets.append(out.count)
            writeString(s)
        }
        return found
    }

    /// Dictionary keys: try the direct-mapped cache (slot from length and first byte)
    /// before hashing; a hit needs the same bytes, as the table does.
    mutating func key(_ s: String) -> Int {
        let utf8 = s.utf8
        let slot = (utf8.count &* 31 &+ Int(utf8.first ?? 0)) & 63
        if recentKeys[slot].index >= 0 && recentKeys[slot].key.isExactly(s) { return recentKeys[slot].index }
        let index = string(s)
        recentKeys[slot] = (s, index)
        return index
    }

    private static func claim(_ slot: inout Int, _ index: Int) -> Int {
        if slot < 0 { slot = index }
        return slot
    }

    // MARK: Hooks for a walk the caller drives (BinaryPlistStream)

    /// A writer with the header written and nothing else.
    static func started() -> BinaryPlistWriter {
        var writer = BinaryPlistWriter()
        writer.out.reserveCapacity(1 << 16)
        writer.out.append(contentsOf: [0x62, 0x70, 0x6C, 0x69, 0x73, 0x74, 0x30, 0x30])  // "bplist00"
        return writer
    }

    /// Opens a container as `flatten` does before walking its children: its number, then
    /// room for its references (dictionaries: `count` keys, then `count` values). Returns its
    /// number and where its references start.
    mutating func open(marker: UInt8, count: Int) -> (object: Int, start: Int) {
        let index = offsets.count
        offsets.append(0)
        let start = refs.count
        containers.append(Container(object: index, marker: marker, start: start, count: count))
        refs.append(contentsOf: repeatElement(0, count: marker == 0xD0 ? 2 * count : count))
        return (index, start)
    }

    mutating func setReference(_ position: Int, to object: Int) { refs[position] = object }

    /// Room for about `objects` objects and `bytes` bytes of output, so that the tables grow
    /// once instead of by doubling.
    mutating func reserve(objects: Int, bytes: Int) {
        strings.reserveCapacity(objects / 3)  // about one object in three is a distinct string
        offsets.reserveCapacity(objects)
        refs.reserveCapacity(2 * objects)
        out.reserveCapacity(bytes)
    }

    /// A new ASCII string object of `length` zero bytes, neither shared nor remembered, to be
    /// filled by `fill` once its text is known. Returns its number and where its bytes start.
    mutating func reserveASCIIString(length: Int) -> (object: Int, bytes: Int) {
        offsets.append(out.count)
        writeMarker(0x50, count: length)
        let start = out.count
        out.append(contentsOf: repeatElement(0, count: length))
        return (offsets.count - 1, start)
    }

    mutating func fill(_ start: Int, with ascii: [UInt8]) {
        out.replaceSubrange(start ..< start + ascii.count, with: ascii)
    }

    // MARK: Containers, offset table, trailer

    mutating func finish() -> [UInt8] {
        let refSize = Self.byteWidth(for: UInt64(max(offsets.count - 1, 0)))
        out.reserveCapacity(out.count + containers.count * 10 + refs.count * refSize + offsets.count * 8 + 32)
        for container in containers {
            offsets[container.object] = out.count
            let n = container.marker == 0xD0 ? 2 * container.count : container.count
            writeMarker(container.marker, count: container.count)
            appendBigEndian(refs[container.start ..< container.start + n], width: refSize)
        }
        let tableOffset = out.count
        let offsetSize = Self.byteWidth(for: UInt64(offsets.max() ?? 0))
        appendBigEndian(offsets[...], width: offsetSize)
        // Trailer: 5 unused bytes, sort version, offset size, ref size, then three 64-bit fields.
        out.append(contentsOf: [0, 0, 0, 0, 0, 0, UInt8(offsetSize), UInt8(refSize)])
        appendBigEndian(UInt64(offsets.count), width: 8)
        appendBigEndian(0, width: 8)  // the top object is number 0
        appendBigEndian(UInt64(tableOffset), width: 8)
        return out
    }

    private mutating func writeScalar(_ value: PlistValue) {
        switch value {
        case let .string(s): writeString(s)
        case let .integer(i): writeInteger(i)
        case let .unsignedInteger(u):
            // Above Int64.max, CoreFoundation and plistlib both write a 16-byte big-endian
            // two's-complement integer: eight zero bytes, then the value.
            out.append(0x14)
            appendBigEndian(0, width: 8)
            appendBigEndian(u, width: 8)
        case let .real(d):
            out.append(0x23)
            appendBigEndian(d.bitPattern, width: 8)
        case let .boolean(b): out.append(b ? 0x09 : 0x08)
        case let .date(d):
            out.append(0x33)
            appendBigEndian(Self.referenceDate(fromUnix: d).bitPattern, width: 8)
        case let .data(bytes):
            writeMarker(0x40, count: bytes.count)
            out.append(contentsOf: bytes)
        case let .uid(u):
            // As plistlib and CoreFoundation: 1, 2, 4 or 8 bytes.
            let width = u <= 0xFF ? 1 : u <= 0xFFFF ? 2 : u <= 0xFFFF_FFFF ? 4 : 8
            out.append(0x80 | UInt8(width - 1))
            appendBigEndian(u, width: width)
        case .null: out.append(0x00)
        case .array, .dictionary:
            preconditionFailure("containers are never scalars")
        }
    }

    private mutating func writeInteger(_ i: Int64) {
        // As CoreFoundation: non-negative values in the smallest of 1, 2, 4 bytes (read as
        // unsigned), everything else in 8 bytes (read as signed).
        if i >= 0 && i <= 0xFF {
            out.append(0x10); out.append(UInt8(i))
        } else if i >= 0 && i <= 0xFFFF {
            out.append(0x11); appendBigEndian(UInt64(i), width: 2)
        } else if i >= 0 && i <= 0xFFFF_FFFF {
            out.append(0x12); appendBigEndian(UInt64(i), width: 4)
        } else {
            out.append(0x13); appendBigEndian(UInt64(bitPattern: i), width: 8)
        }
    }

    private mutating func writeString(_ s: String) {
        let utf8 = s.utf8
        let ascii = utf8.withContiguousStorageIfAvailable { buffer in
            buffer.allSatisfy { $0 < 0x80 }
        } ?? utf8.allSatisfy { $0 < 0x80 }
        if ascii {
            writeMarker(0x50, count: utf8.count)
            out.append(contentsOf: utf8)
        } else {
            let units = s.utf16
            writeMarker(0x60, count: units.count)
            for unit in units {
                out.append(UInt8(truncatingIfNeeded: unit >> 8))
                out.append(UInt8(truncatingIfNeeded: unit))
            }
        }
    }

    /// A type nibble with its count: inline when below 15, else 0xF and an integer object.
    private mutating func writeMarker(_ type: UInt8, count: Int) {
        if count < 15 {
            out.append(type | UInt8(count))
        } else {
            out.append(type | 0x0F)
            writeInteger(Int64(count))
        }
    }

    /// `appendBigEndian` of each of `values`, written in one pass: a log's references and
    /// offsets are most of the numbers of its file, and appending them byte by byte checked
    /// the array's uniqueness and capacity for every byte.
    private mutating func appendBigEndian(_ values: ArraySlice<Int>, width: Int) {
        let start = out.count
        out.append(contentsOf: repeatElement(0, count: values.count * width))
        out.withUnsafeMutableBufferPointer { buffer in
            var position = start
            for value in values {
                var shift = (width - 1) * 8
                while shift >= 0 {
                    buffer[position] = UInt8(truncatingIfNeeded: UInt64(value) >> UInt64(shift))
                    position += 1
                    shift -= 8
                }
            }
        }
    }

    private mutating func appendBigEndian(_ value: UInt64, width: Int) {
        var shift = (width - 1) * 8
        while shift >= 0 {
            out.append(UInt8(truncatingIfNeeded: value >> UInt64(shift)))
            shift -= 8
        }
    }

    /// Fewest bytes that hold `value`. Like Foundation's PropertyListEncoder (and unlike
    /// older CoreFoundation) widths of 3, 5, 6 and 7 are used too; all readers accept them.
    static func byteWidth(for value: UInt64) -> Int {
        max(1, (UInt64.bitWidth - value.leadingZeroBitCount + 7) / 8)
    }

    /// Whether `a` sorts before `b` by UTF-8 bytes (that is, by code point). A plain loop:
    /// keys are short and usually differ early, where calling memcmp costs more.
    static func utf8Precedes(_ a: String, _ b: String) -> Bool {
        var a = a, b = b
        return a.withUTF8 { x in
            b.withUTF8 { y in
                let common = min(x.count, y.count)
                var i = 0
                while i < common {
                    if x[i] != y[i] { return x[i] < y[i] }
                    i += 1
                }
                return x.count < y.count
            }
        }
    }

    /// The 2001-based Double that reads back as exactly `unix` when 978307200 is added, if
    /// one exists near the plain difference; otherwise the plain (nearest) difference.
    static func referenceDate(fromUnix unix: Double) -> Double {
        let plain = unix - epochDelta
        guard unix.isFinite, plain + epochDelta != unix else { return plain }
        var up = plain, down = plain
        for _ in 0 ..< 4 {
            up = up.nextUp
            down = down.nextDown
            if up + epochDelta == unix { return up }
            if down + epochDelta == unix { return down }
        }
        return plain
    }
}
