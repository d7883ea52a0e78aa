import Crypto
import Foundation
import UbiquityPlist

/// A deterministic byte form of a property-list value, used only for checksums: the same value
/// gives the same bytes whichever plist format carried it and whichever writer wrote it.
///
/// Each value is a tag byte and its content; lengths and numbers are 8-byte big-endian;
/// dictionary entries are sorted by the UTF-8 bytes of their keys.
package enum CanonicalEncoding {
    package static func sha256Hex(of value: PlistValue) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(4096)
        append(value, to: &bytes)
        return String(decoding: sha256HexBytes(ofCanonical: bytes), as: UTF8.self)
    }

    /// The SHA-256 of canonical bytes already written (`appendDictionaryHeader`, `appendKey`,
    /// `append`) in lower-case hex, as ASCII bytes.
    package static func sha256HexBytes(ofCanonical bytes: [UInt8]) -> [UInt8] {
        let digits = Array("0123456789abcdef".utf8)
        var hex: [UInt8] = []
        hex.reserveCapacity(64)
        for byte in SHA256.hash(data: bytes) {
            hex.append(digits[Int(byte >> 4)])
            hex.append(digits[Int(byte & 0x0F)])
        }
        return hex
    }

    /// The start of a dictionary of `count` entries; each entry follows as `appendKey` and
    /// its value, in the order of `precedes` — the bytes `append` writes for the dictionary.
    package static func appendDictionaryHeader(count: Int, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "m")); appendNumber(UInt64(count), to: &bytes)
    }

    /// The start of an array of `count` elements, each following as its value.
    package static func appendArrayHeader(count: Int, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "a")); appendNumber(UInt64(count), to: &bytes)
    }

    /// A dictionary key.
    package static func appendKey(_ key: String, to bytes: inout [UInt8]) {
        appendString(key, to: &bytes)
    }

    package static func append(_ value: PlistValue, to bytes: inout [UInt8]) {
        switch value {
        case let .string(s):
            bytes.append(UInt8(ascii: "s")); appendString(s, to: &bytes)
        case let .integer(i):
            bytes.append(UInt8(ascii: "i")); appendNumber(UInt64(bitPattern: i), to: &bytes)
        case let .unsignedInteger(u):
            bytes.append(UInt8(ascii: "u")); appendNumber(u, to: &bytes)
        case let .real(d):
            bytes.append(UInt8(ascii: "r")); appendNumber(d.isNaN ? Double.nan.bitPattern : d.bitPattern, to: &bytes)
        case let .boolean(b):
            bytes.append(b ? UInt8(ascii: "T") : UInt8(ascii: "F"))
        case let .date(d):
            bytes.append(UInt8(ascii: "d")); appendNumber(d.bitPattern, to: &bytes)
        case let .data(d):
            bytes.append(UInt8(ascii: "b")); appendNumber(UInt64(d.count), to: &bytes); bytes.append(contentsOf: d)
        case let .uid(u):
            bytes.append(UInt8(ascii: "U")); appendNumber(u, to: &bytes)
        case .null:
            bytes.append(UInt8(ascii: "n"))
        case let .array(a):
            bytes.append(UInt8(ascii: "a")); appendNumber(UInt64(a.count), to: &bytes)
            for element in a { append(element, to: &bytes) }
        case let .dictionary(d):
            bytes.append(UInt8(ascii: "m")); appendNumber(UInt64(d.count), to: &bytes)
            // The keys are sorted in a scratch buffer on the stack: a log holds a few small
            // dictionaries per record, and sorting copies of their pairs cost more than the hash.
            withUnsafeTemporaryAllocation(of: String.self, capacity: d.count) { buffer in
                var keys = buffer
                _ = keys.initialize(from: d.keys)
                keys.sort(by: precedes)
                for key in keys {
                    appendString(key, to: &bytes)
                    append(d[key]!, to: &bytes)
                }
                keys.deinitialize()
            }
        }
    }

    private static func appendString(_ string: String, to bytes: inout [UInt8]) {
        var string = string
        // Contiguous UTF-8 is copied at once (a log's checksum walks every string it holds).
        string.withUTF8 { utf8 in
            appendNumber(UInt64(utf8.count), to: &bytes)
            bytes.append(contentsOf: utf8)
        }
    }

    /// The bytes `append` wrote for each element of an array of scalars (no array or
    /// dictionary inside), or `nil` when `bytes` is not exactly one such array.
    package static func scalarElements(ofArray bytes: [UInt8]) -> [ArraySlice<UInt8>]? {
        guard bytes.first == UInt8(ascii: "a"), let count = number(in: bytes, at: 1), count <= bytes.count else { return nil }
        var elements: [ArraySlice<UInt8>] = [], offset = 9
        for _ in 0..<count {
            guard offset < bytes.count else { return nil }
            let length: Int
            switch bytes[offset] {
            case UInt8(ascii: "s"), UInt8(ascii: "b"):
                guard let content = number(in: bytes, at: offset + 1), content <= bytes.count else { return nil }
                length = 9 + content
            case UInt8(ascii: "i"), UInt8(ascii: "u"), UInt8(ascii: "r"), UInt8(ascii: "d"), UInt8(ascii: "U"): length = 9
            case UInt8(ascii: "T"), UInt8(ascii: "F"), UInt8(ascii: "n"): length = 1
            default: return nil
            }
            guard offset + length <= bytes.count else { return nil }
            elements.append(bytes[offset..<offset + length])
            offset += length
        }
        return offset == bytes.count ? elements : nil
    }

    /// The 8-byte big-endian number at `offset`, when it fits an `Int`.
    private static func number(in bytes: [UInt8], at offset: Int) -> Int? {
        guard offset >= 0, offset + 8 <= bytes.count else { return nil }
        let value = bytes[offset..<offset + 8].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        return Int(exactly: value)
    }

    /// Whether `a` sorts before `b` by their UTF-8 bytes.
    package static func precedes(_ a: String, _ b: String) -> Bool {
        var a = a, b = b
        return a.withUTF8 { x in
            b.withUTF8 { y in
                let common = min(x.count, y.count)
                let order = common == 0 ? 0 : memcmp(x.baseAddress!, y.baseAddress!, common)
                return order != 0 ? order < 0 : x.count < y.count
            }
        }
    }

    private static func appendNumber(_ value: UInt64, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: value.bigEndian) { bytes.append(contentsOf: $0) }
    }
}
