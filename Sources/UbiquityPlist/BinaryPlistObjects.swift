/// Random access to the object table of a `bplist00` file, for readers that walk a known shape
/// (a transaction log) without building a `PlistValue` tree.
///
/// Every offset, length and reference is checked as `BinaryPlistReader` checks it, but this view
/// never explains a failure: whatever it cannot read (a malformed object, a set, a length that
/// runs past the object area) is `nil`, and the caller falls back to `PlistCodec`'s reader,
/// which judges the file and says what is wrong. Values read here equal the reader's values.
package struct BinaryPlistObjects {
    /// One object as it lies in the file; byte ranges index `bytes`.
    package enum Object {
        case null
        case boolean(Bool)
        case integer(Int64)
        case unsignedInteger(UInt64)
        case real(Double)
        case date(Double)
        case uid(UInt64)
        case data(Range<Int>)
        /// A `0x5` string; `ascii` when every byte is below 0x80 (else UTF-8 still to be validated).
        case string8(Range<Int>, ascii: Bool)
        /// A `0x6` string: big-endian UTF-16 units.
        case string16(Range<Int>)
        /// `count` references from byte `refs`.
        case array(refs: Int, count: Int)
        /// `count` key references from byte `refs`, then `count` value references.
        case dictionary(refs: Int, count: Int)
    }

    package let bytes: UnsafeBufferPointer<UInt8>
    package let limits: PlistLimits
    package let refSize: Int
    package let objectCount: Int
    /// The top object's index.
    package let top: Int
    private let offsetSize: Int
    private let tableOffset: Int

    private static let header: [UInt8] = [0x62, 0x70, 0x6C, 0x69, 0x73, 0x74, 0x30, 0x30]  // bplist00
    private static let trailerSize = 32

    /// The view of `bytes`, or `nil` when they are not a binary plist with a sound trailer.
    package init?(_ bytes: UnsafeBufferPointer<UInt8>, limits: PlistLimits) {
        let n = bytes.count
        guard n <= limits.maxBytes, n >= Self.header.count + 2 + Self.trailerSize,
              Self.header.elementsEqual(bytes[0 ..< Self.header.count]) else { return nil }
        let t = n - Self.trailerSize
        let offsetSize = Int(bytes[t + 6]), refSize = Int(bytes[t + 7])
        guard (1 ... 8).contains(offsetSize), (1 ... 8).contains(refSize) else { return nil }
        let count = Self.readUInt(bytes, at: t + 8, width: 8)
        let top = Self.readUInt(bytes, at: t + 16, width: 8)
        let table = Self.readUInt(bytes, at: t + 24, width: 8)
        guard count > 0, count <= UInt64(max(limits.maxObjects, 0)),
              table >= UInt64(Self.header.count + 1), table <= UInt64(t) else { return nil }
        let (tableBytes, overflow) = count.multipliedReportingOverflow(by: UInt64(offsetSize))
        guard !overflow, tableBytes <= UInt64(t) - table, top < count else { return nil }
        self.bytes = bytes
        self.limits = limits
        self.offsetSize = offsetSize
        self.refSize = refSize
        self.objectCount = Int(count)
        self.tableOffset = Int(table)
        self.top = Int(top)
    }

    @inline(__always)
    private static func readUInt(_ bytes: UnsafeBufferPointer<UInt8>, at position: Int, width: Int) -> UInt64 {
        // References and offsets of a log are one or two bytes wide, read for every object.
        switch width {
        case 1: return UInt64(bytes[position])
        case 2: return UInt64(bytes[position]) << 8 | UInt64(bytes[position + 1])
        default: break
        }
        var value: UInt64 = 0
        for i in position ..< position + width { value = value << 8 | UInt64(bytes[i]) }
        return value
    }

    /// Whether `length` bytes from `start` lie inside the object area.
    @inline(__always)
    private func fits(_ start: Int, _ length: UInt64) -> Bool {
        length <= UInt64(tableOffset) && UInt64(start) <= UInt64(tableOffset) - length
    }

    /// The `i`th reference of a container whose references start at `refs` (checked to fit
    /// when the container was read), or `nil` when it is not below the object count.
    @inline(__always)
    package func reference(_ refs: Int, _ i: Int) -> Int? {
        let ref = Self.readUInt(bytes, at: refs + i * refSize, width: refSize)
        return ref < UInt64(objectCount) ? Int(ref) : nil
    }

    /// A count in a marker's low nibble or in the integer object after it.
    private func count(_ marker: UInt8, at position: Int) -> (count: Int, payload: Int)? {
        let nibble = marker & 0x0F
        if nibble != 0x0F { return (Int(nibble), position + 1) }
        guard fits(position + 1, 1) else { return nil }
        let intMarker = bytes[position + 1]
        guard intMarker >> 4 == 0x1, intMarker & 0x0F <= 3 else { return nil }
        let width = 1 << Int(intMarker & 0x0F)
        guard fits(position + 2, UInt64(width)) else { return nil }
        let value = Self.readUInt(bytes, at: position + 2, width: width)
        guard value <= UInt64(Int.max) else { return nil }
        return (Int(value), position + 2 + width)
    }

    /// Object `index`, or `nil` when it is malformed or of a kind logs never hold (sets).
    package func object(_ index: Int) -> Object? {
        guard index >= 0, index < objectCount else { return nil }
        let entry = tableOffset + index * offsetSize
        let offset = Self.readUInt(bytes, at: entry, width: offsetSize)
        guard offset >= UInt64(Self.header.count), offset < UInt64(tableOffset) else { return nil }
        let start = Int(offset)
        let marker = bytes[start]
        switch marker >> 4 {
        case 0x0:
            switch marker {
            case 0x08: return .boolean(false)
            case 0x09: return .boolean(true)
            case 0x00: return .null
            default: return nil
            }
        case 0x1:
            let exponent = marker & 0x0F
            guard exponent <= 4 else { return nil }
            let width = 1 << Int(exponent)
            guard fits(start + 1, UInt64(width)) else { return nil }
            switch width {
            case 1, 2, 4: return .integer(Int64(Self.readUInt(bytes, at: start + 1, width: width)))
            case 8: return .integer(Int64(bitPattern: Self.readUInt(bytes, at: start + 1, width: 8)))
            default:
                let high = Self.readUInt(bytes, at: start + 1, width: 8), low = Self.readUInt(bytes, at: start + 9, width: 8)
                if high == 0 { return low <= UInt64(Int64.max) ? .integer(Int64(low)) : .unsignedInteger(low) }
                if high == UInt64.max, low >= 1 << 63 { return .integer(Int64(bitPattern: low)) }
                return nil
            }
        case 0x2:
            let width = marker & 0x0F
            guard width == 2 || width == 3, fits(start + 1, width == 2 ? 4 : 8) else { return nil }
            if width == 2 { return .real(Double(Float(bitPattern: UInt32(Self.readUInt(bytes, at: start + 1, width: 4))))) }
            return .real(Double(bitPattern: Self.readUInt(bytes, at: start + 1, width: 8)))
        case 0x3:
            guard marker == 0x33, fits(start + 1, 8) else { return nil }
            return .date(Double(bitPattern: Self.readUInt(bytes, at: start + 1, width: 8)) + BinaryPlistWriter.epochDelta)
        case 0x4:
            guard let (length, payload) = count(marker, at: start), fits(payload, UInt64(length)) else { return nil }
            return .data(payload ..< payload + length)
        case 0x5:
            guard let (length, payload) = count(marker, at: start), fits(payload, UInt64(length)) else { return nil }
            let range = payload ..< payload + length
            return .string8(range, ascii: isASCII(range))
        case 0x6:
            guard let (length, payload) = count(marker, at: start) else { return nil }
            let (byteLength, overflow) = length.multipliedReportingOverflow(by: 2)
            guard !overflow, fits(payload, UInt64(byteLength)) else { return nil }
            return .string16(payload ..< payload + byteLength)
        case 0x8:
            let width = Int(marker & 0x0F) + 1
            guard width <= 8, fits(start + 1, UInt64(width)) else { return nil }
            return .uid(Self.readUInt(bytes, at: start + 1, width: width))
        case 0xA:
            guard let (n, payload) = count(marker, at: start) else { return nil }
            let (size, overflow) = n.multipliedReportingOverflow(by: refSize)
            guard !overflow, fits(payload, UInt64(size)) else { return nil }
            return .array(refs: payload, count: n)
        case 0xD:
            guard let (n, payload) = count(marker, at: start) else { return nil }
            let (size, overflow) = n.multipliedReportingOverflow(by: 2 * refSize)
            guard !overflow, fits(payload, UInt64(size)) else { return nil }
            return .dictionary(refs: payload, count: n)
        default:
            return nil
        }
    }

    /// Whether every byte of `range` (inside `bytes`) is below 0x80, eight bytes at a time: every
    /// string of a log is checked each time it is read.
    private func isASCII(_ range: Range<Int>) -> Bool {
        guard let base = bytes.baseAddress.map(UnsafeRawPointer.init) else { return range.isEmpty }
        var i = range.lowerBound
        while range.upperBound - i >= 8 {
            if base.loadUnaligned(fromByteOffset: i, as: UInt64.self) & 0x8080_8080_8080_8080 != 0 { return false }
            i += 8
        }
        while i < range.upperBound {
            if bytes[i] >= 0x80 { return false }
            i += 1
        }
        return true
    }

    /// The entry count of object `index` when it is a dictionary, else `nil`.
    package func count(ofDictionary index: Int) -> Int? {
        if case let .dictionary(_, count)? = object(index) { return count }
        return nil
    }

    /// The string an `Object.string8` or `.string16` holds, as the reader decodes it; `nil` for
    /// other objects, for `0x5` bytes that are not UTF-8 and for `0x6` ones with an unpaired surrogate.
    package func string(_ object: Object) -> String? {
        switch object {
        case let .string8(range, ascii):
            let slice = UnsafeBufferPointer(rebasing: bytes[range])
            return ascii ? String(decoding: slice, as: UTF8.self) : String(validating: slice, as: UTF8.self)
        case let .string16(range):
            return BinaryPlistReader.utf16BigEndian(UnsafeBufferPointer(rebasing: bytes[range]))
        default:
            return nil
        }
    }

    /// Object `index` as the `PlistValue` the reader makes of it, containers included, within
    /// `depth` (the nesting of the object) and the limits; `nil` when anything is unreadable.
    /// A cycle ends at the depth limit.
    package func value(_ index: Int, depth: Int) -> PlistValue? {
        guard let object = object(index) else { return nil }
        switch object {
        case .null: return .null
        case let .boolean(b): return .boolean(b)
        case let .integer(i): return .integer(i)
        case let .unsignedInteger(u): return .unsignedInteger(u)
        case let .real(d): return .real(d)
        case let .date(d): return .date(d)
        case let .uid(u): return .uid(u)
        case let .data(range): return .data(Array(bytes[range]))
        case .string8, .string16: return string(object).map(PlistValue.string)
        case let .array(refs, count):
            guard depth < limits.maxDepth else { return nil }
            var elements: [PlistValue] = []
            elements.reserveCapacity(count)
            for i in 0 ..< count {
                guard let ref = reference(refs, i), let element = value(ref, depth: depth + 1) else { return nil }
                elements.append(element)
            }
            return .array(elements)
        case let .dictionary(refs, count):
            guard depth < limits.maxDepth else { return nil }
            var dictionary = [String: PlistValue](minimumCapacity: count)
            for i in 0 ..< count {
                guard let keyRef = reference(refs, i), let valueRef = reference(refs, count + i),
                      let keyObject = self.object(keyRef), let key = string(keyObject),
                      let element = value(valueRef, depth: depth + 1) else { return nil }
                // Keys that differ only in normalisation cannot both be held: the reader refuses them.
                if dictionary.updateValue(element, forKey: key) != nil, !dictionary.keys[dictionary.index(forKey: key)!].isExactly(key) { return nil }
            }
            return .dictionary(dictionary)
        }
    }
}
