/// Reads `bplist00` files defensively.
///
/// All sizes and offsets in the file are untrusted: every read is bounds-checked with
/// overflow-checked arithmetic against the object area (the bytes between the header and the
/// offset table), references are checked against the object count, an object that is
/// reached again while it is being decoded is a cycle, and the total number of values
/// produced is capped so heavily shared references cannot blow up.
struct BinaryPlistReader {
    private let bytes: UnsafeBufferPointer<UInt8>
    private let limits: PlistLimits
    private var offsetSize = 0
    private var refSize = 0
    private var objectCount = 0
    private var tableOffset = 0
    private var produced = 0
    /// Objects on the current decoding path, to detect cycles.
    private var onPath: [Bool] = []
    /// Decoded strings by object index: shared keys are decoded once and then shared.
    private var strings: [String?] = []

    private static let header: [UInt8] = [0x62, 0x70, 0x6C, 0x69, 0x73, 0x74, 0x30, 0x30]  // bplist00
    private static let trailerSize = 32

    static func decode(_ bytes: UnsafeBufferPointer<UInt8>, limits: PlistLimits) throws(PlistError) -> PlistValue {
        var reader = BinaryPlistReader(bytes: bytes, limits: limits)
        let top = try reader.readTrailer()
        return try reader.object(top, depth: 0)
    }

    private init(bytes: UnsafeBufferPointer<UInt8>, limits: PlistLimits) {
        self.bytes = bytes
        self.limits = limits
    }

    private func fail(_ message: String, at offset: Int) -> PlistError {
        PlistError("binary plist: " + message, location: .byteOffset(offset))
    }

    // MARK: Trailer and offset table

    private mutating func readTrailer() throws(PlistError) -> Int {
        let n = bytes.count
        if n > limits.maxBytes {
            throw fail("file is \(n) bytes, more than the limit of \(limits.maxBytes)", at: limits.maxBytes)
        }
        if n < Self.header.count || !Self.header.elementsEqual(bytes[0 ..< Self.header.count]) {
            throw fail("missing \"bplist00\" header", at: 0)
        }
        // Smallest possible file: header, one 1-byte object, one 1-byte offset, trailer.
        if n < Self.header.count + 2 + Self.trailerSize {
            throw fail("file is truncated (\(n) bytes is too short for a trailer)", at: n)
        }
        let t = n - Self.trailerSize
        offsetSize = Int(bytes[t + 6])
        refSize = Int(bytes[t + 7])
        // Any width from 1 to 8 bytes: Foundation's encoder writes 3, 5, 6 and 7 too.
        guard (1 ... 8).contains(offsetSize) else {
            throw fail("trailer offset size \(offsetSize) is not between 1 and 8", at: t + 6)
        }
        guard (1 ... 8).contains(refSize) else {
            throw fail("trailer object reference size \(refSize) is not between 1 and 8", at: t + 7)
        }
        let count = readUInt(at: t + 8, width: 8)
        let top = readUInt(at: t + 16, width: 8)
        let table = readUInt(at: t + 24, width: 8)
        guard count > 0 else { throw fail("trailer declares no objects", at: t + 8) }
        guard count <= UInt64(max(limits.maxObjects, 0)) else {
            throw fail("trailer declares \(count) objects, more than the limit of \(limits.maxObjects)", at: t + 8)
        }
        guard table >= UInt64(Self.header.count + 1), table <= UInt64(t) else {
            throw fail("offset table offset \(table) lies outside the file", at: t + 24)
        }
        let (tableBytes, overflow) = count.multipliedReportingOverflow(by: UInt64(offsetSize))
        guard !overflow, tableBytes <= UInt64(t) - table else {
            throw fail("offset table of \(count) entries does not fit between offset \(table) and the trailer", at: t + 8)
        }
        guard top < count else {
            throw fail("top object \(top) is not below the object count \(count)", at: t + 16)
        }
        objectCount = Int(count)
        tableOffset = Int(table)
        onPath = Array(repeating: false, count: objectCount)
        strings = Array(repeating: nil, count: objectCount)
        return Int(top)
    }

    /// Start of object `index`, checked to lie inside the object area.
    private func offset(of index: Int) throws(PlistError) -> Int {
        let entry = tableOffset + index * offsetSize  // cannot overflow: the table was checked to fit
        let value = readUInt(at: entry, width: offsetSize)
        guard value >= UInt64(Self.header.count), value < UInt64(tableOffset) else {
            throw fail("offset table entry \(index) points outside the object area (to \(value))", at: entry)
        }
        return Int(value)
    }

    /// Big-endian unsigned integer; callers have checked the bounds.
    @inline(__always)
    private func readUInt(at position: Int, width: Int) -> UInt64 {
        var value: UInt64 = 0
        for i in position ..< position + width { value = value << 8 | UInt64(bytes[i]) }
        return value
    }

    /// Throws unless `length` bytes from `start` lie inside the object area.
    @inline(__always)
    private func require(_ start: Int, _ length: UInt64, what: @autoclosure () -> String, object: Int) throws(PlistError) {
        guard length <= UInt64(tableOffset), UInt64(start) <= UInt64(tableOffset) - length else {
            throw fail("\(what()) of object \(object) runs past the end of the object area", at: start)
        }
    }

    // MARK: Objects

    private func count(_ marker: UInt8, at position: Int, object: Int) throws(PlistError) -> (count: UInt64, payload: Int) {
        let nibble = marker & 0x0F
        if nibble != 0x0F { return (UInt64(nibble), position + 1) }
        try require(position + 1, 1, what: "length", object: object)
        let intMarker = bytes[position + 1]
        guard intMarker >> 4 == 0x1, intMarker & 0x0F <= 3 else {
            throw fail("length of object \(object) is not an integer of 1, 2, 4 or 8 bytes", at: position + 1)
        }
        let width = 1 << Int(intMarker & 0x0F)
        try require(position + 2, UInt64(width), what: "length", object: object)
        let value = readUInt(at: position + 2, width: width)
        guard value <= UInt64(Int.max) else {
            throw fail("length \(value) of object \(object) is absurd", at: position + 2)
        }
        return (value, position + 2 + width)
    }

    private mutating func object(_ index: Int, depth: Int) throws(PlistError) -> PlistValue {
        produced += 1
        if produced > limits.maxObjects {
            throw fail("more than \(limits.maxObjects) values (limit)", at: (try? offset(of: index)) ?? 0)
        }
        if let cached = strings[index] { return .string(cached) }
        let start = try offset(of: index)
        let marker = bytes[start]
        switch marker >> 4 {
        case 0x0:
            switch marker {
            case 0x08: return .boolean(false)
            case 0x09: return .boolean(true)
            case 0x00: return .null
            default: throw fail("unknown object marker 0x\(String(marker, radix: 16)) (object \(index))", at: start)
            }
        case 0x1:
            return try integer(marker, at: start, object: index)
        case 0x2:
            let width = marker & 0x0F
            guard width == 2 || width == 3 else {
                throw fail("real of \(1 << Int(min(width, 15))) bytes is not supported (object \(index))", at: start)
            }
            try require(start + 1, width == 2 ? 4 : 8, what: "real", object: index)
            if width == 2 {
                return .real(Double(Float(bitPattern: UInt32(readUInt(at: start + 1, width: 4)))))
            }
            return .real(Double(bitPattern: readUInt(at: start + 1, width: 8)))
        case 0x3:
            guard marker == 0x33 else { throw fail("malformed date marker 0x\(String(marker, radix: 16)) (object \(index))", at: start) }
            try require(start + 1, 8, what: "date", object: index)
            return .date(Double(bitPattern: readUInt(at: start + 1, width: 8)) + BinaryPlistWriter.epochDelta)
        case 0x4:
            let (length, payload) = try count(marker, at: start, object: index)
            try require(payload, length, what: "data", object: index)
            return .data(Array(bytes[payload ..< payload + Int(length)]))
        case 0x5, 0x6:
            let s = try string(marker, at: start, object: index)
            strings[index] = s
            return .string(s)
        case 0xA:
            return try array(marker, at: start, object: index, depth: depth)
        case 0xD:
            return try dictionary(marker, at: start, object: index, depth: depth)
        case 0x8:
            // A keyed archive's UID: the low nibble + 1 big-endian bytes (plistlib and
            // CoreFoundation write 1, 2, 4 or 8; any width that fits 64 bits is read).
            let width = Int(marker & 0x0F) + 1
            guard width <= 8 else { throw fail("UID of \(width) bytes does not fit in 64 bits (object \(index))", at: start) }
            try require(start + 1, UInt64(width), what: "UID", object: index)
            return .uid(readUInt(at: start + 1, width: width))
        case 0xB, 0xC:
            throw fail("sets are not supported (object \(index))", at: start)
        default:
            throw fail("unknown object marker 0x\(String(marker, radix: 16)) (object \(index))", at: start)
        }
    }

    /// An array object: its references read and each element decoded, one level deeper.
    private mutating func array(_ marker: UInt8, at start: Int, object index: Int, depth: Int) throws(PlistError) -> PlistValue {
        let (n, payload) = try count(marker, at: start, object: index)
        let (size, overflow) = n.multipliedReportingOverflow(by: UInt64(refSize))
        if overflow { throw fail("array count \(n) is absurd (object \(index))", at: start) }
        try require(payload, size, what: "array", object: index)
        try enter(index, depth: depth, at: start)
        var elements = [PlistValue]()
        elements.reserveCapacity(Int(n))
        for i in 0 ..< Int(n) {
            let ref = try reference(at: payload + i * refSize)
            elements.append(try object(ref, depth: depth + 1))
        }
        onPath[index] = false
        return .array(elements)
    }

    /// A dictionary object: keys must be strings, and two keys differing only in Unicode
    /// normalisation are refused (they would be one key to Foundation).
    private mutating func dictionary(_ marker: UInt8, at start: Int, object index: Int, depth: Int) throws(PlistError) -> PlistValue {
        let (n, payload) = try count(marker, at: start, object: index)
        let (size, overflow) = n.multipliedReportingOverflow(by: UInt64(2 * refSize))
        if overflow { throw fail("dictionary count \(n) is absurd (object \(index))", at: start) }
        try require(payload, size, what: "dictionary", object: index)
        try enter(index, depth: depth, at: start)
        var dictionary = [String: PlistValue](minimumCapacity: Int(n))
        let valuesStart = payload + Int(n) * refSize
        for i in 0 ..< Int(n) {
            let key = try self.key(at: payload + i * refSize)
            let ref = try reference(at: valuesStart + i * refSize)
            if dictionary.updateValue(try object(ref, depth: depth + 1), forKey: key) != nil,
               !dictionary.keys[dictionary.index(forKey: key)!].isExactly(key) {
                throw fail("dictionary (object \(index)) has two keys that differ only in Unicode normalisation", at: start)
            }
        }
        onPath[index] = false
        return .dictionary(dictionary)
    }

    /// Marks a container as being decoded, refusing cycles and excessive depth.
    private mutating func enter(_ index: Int, depth: Int, at start: Int) throws(PlistError) {
        if depth >= limits.maxDepth {
            throw fail("nesting depth exceeds the limit of \(limits.maxDepth)", at: start)
        }
        if onPath[index] {
            throw fail("object \(index) contains itself (cyclic reference)", at: start)
        }
        onPath[index] = true
    }

    private func reference(at position: Int) throws(PlistError) -> Int {
        let ref = readUInt(at: position, width: refSize)
        guard ref < UInt64(objectCount) else {
            throw fail("object reference \(ref) is not below the object count \(objectCount)", at: position)
        }
        return Int(ref)
    }

    private mutating func key(at position: Int) throws(PlistError) -> String {
        let ref = try reference(at: position)
        if let cached = strings[ref] {
            produced += 1
            return cached
        }
        let start = try offset(of: ref)
        let marker = bytes[start]
        guard marker >> 4 == 0x5 || marker >> 4 == 0x6 else {
            throw fail("dictionary key (object \(ref)) is not a string", at: start)
        }
        guard case let .string(s) = try object(ref, depth: 0) else { preconditionFailure("string marker") }
        return s
    }

    private func integer(_ marker: UInt8, at start: Int, object index: Int) throws(PlistError) -> PlistValue {
        let exponent = marker & 0x0F
        guard exponent <= 4 else {
            throw fail("integer of 2^\(exponent) bytes is not supported (object \(index))", at: start)
        }
        let width = 1 << Int(exponent)
        try require(start + 1, UInt64(width), what: "integer", object: index)
        switch width {
        case 1, 2, 4: return .integer(Int64(readUInt(at: start + 1, width: width)))  // unsigned
        case 8: return .integer(Int64(bitPattern: readUInt(at: start + 1, width: 8)))  // signed
        default:
            // 16 bytes, two's complement: only values that fit 64 bits are accepted.
            let high = readUInt(at: start + 1, width: 8)
            let low = readUInt(at: start + 9, width: 8)
            if high == 0 {
                return low <= UInt64(Int64.max) ? .integer(Int64(low)) : .unsignedInteger(low)
            }
            if high == UInt64.max, low >= 1 << 63 { return .integer(Int64(bitPattern: low)) }
            throw fail("integer does not fit in 64 bits (object \(index))", at: start)
        }
    }

    private func string(_ marker: UInt8, at start: Int, object index: Int) throws(PlistError) -> String {
        let (length, payload) = try count(marker, at: start, object: index)
        if marker >> 4 == 0x5 {
            try require(payload, length, what: "string", object: index)
            let slice = UnsafeBufferPointer(rebasing: bytes[payload ..< payload + Int(length)])
            if slice.allSatisfy({ $0 < 0x80 }) { return String(decoding: slice, as: UTF8.self) }
            // Not ASCII as the format requires; accept well-formed UTF-8 from lax writers.
            guard let s = String(validating: slice, as: UTF8.self) else {
                throw fail("ASCII string (object \(index)) holds bytes that are not UTF-8", at: payload)
            }
            return s
        }
        let (byteLength, overflow) = length.multipliedReportingOverflow(by: 2)
        if overflow { throw fail("string length \(length) is absurd (object \(index))", at: start) }
        try require(payload, byteLength, what: "string", object: index)
        guard let s = Self.utf16BigEndian(UnsafeBufferPointer(rebasing: bytes[payload ..< payload + Int(byteLength)])) else {
            throw fail("UTF-16 string (object \(index)) holds an unpaired surrogate", at: payload)
        }
        return s
    }

    /// Transcodes UTF-16BE straight to a native UTF-8 String; `nil` when it holds an unpaired
    /// surrogate, which no String can hold: replacing it by U+FFFD would read a text other
    /// than the one written (and two different files as one).
    static func utf16BigEndian(_ payload: UnsafeBufferPointer<UInt8>) -> String? {
        let units = payload.count / 2
        var valid = true
        let text = String(unsafeUninitializedCapacity: units * 3) { out in
            var o = 0
            var i = 0
            @inline(__always) func put(_ scalar: UInt32) {
                switch scalar {
                case 0 ..< 0x80:
                    out[o] = UInt8(scalar); o += 1
                case 0x80 ..< 0x800:
                    out[o] = UInt8(0xC0 | scalar >> 6); out[o + 1] = UInt8(0x80 | scalar & 0x3F); o += 2
                case 0x800 ..< 0x10000:
                    out[o] = UInt8(0xE0 | scalar >> 12); out[o + 1] = UInt8(0x80 | scalar >> 6 & 0x3F)
                    out[o + 2] = UInt8(0x80 | scalar & 0x3F); o += 3
                default:
                    out[o] = UInt8(0xF0 | scalar >> 18); out[o + 1] = UInt8(0x80 | scalar >> 12 & 0x3F)
                    out[o + 2] = UInt8(0x80 | scalar >> 6 & 0x3F); out[o + 3] = UInt8(0x80 | scalar & 0x3F); o += 4
                }
            }
            while i < units {
                let unit = UInt32(payload[2 * i]) << 8 | UInt32(payload[2 * i + 1])
                i += 1
                if unit & 0xF800 != 0xD800 {
                    put(unit)
                } else if unit < 0xDC00, i < units {
                    let next = UInt32(payload[2 * i]) << 8 | UInt32(payload[2 * i + 1])
                    if next & 0xFC00 == 0xDC00 {
                        i += 1
                        put(0x10000 + ((unit - 0xD800) << 10) + (next - 0xDC00))
                    } else {
                        valid = false
                        return 0
                    }
                } else {
                    valid = false
                    return 0
                }
            }
            return o
        }
        return valid ? text : nil
    }
}
