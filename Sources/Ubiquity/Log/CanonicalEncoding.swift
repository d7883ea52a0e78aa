import Crypto
import UbiquityPlist

/// A deterministic byte form of a property-list value, used only for checksums: the same value
/// gives the same bytes whichever plist format carried it and whichever writer wrote it.
///
/// Each value is a tag byte and its content; lengths and numbers are 8-byte big-endian;
/// dictionary entries are sorted by the UTF-8 bytes of their keys.
enum CanonicalEncoding {
    static func sha256Hex(of value: PlistValue) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(4096)
        append(value, to: &bytes)
        return SHA256.hash(data: bytes).map { byte in
            let hex = String(byte, radix: 16)
            return byte < 16 ? "0" + hex : hex
        }.joined()
    }

    static func append(_ value: PlistValue, to bytes: inout [UInt8]) {
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
        case let .array(a):
            bytes.append(UInt8(ascii: "a")); appendNumber(UInt64(a.count), to: &bytes)
            for element in a { append(element, to: &bytes) }
        case let .dictionary(d):
            bytes.append(UInt8(ascii: "m")); appendNumber(UInt64(d.count), to: &bytes)
            for key in d.keys.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }) {
                appendString(key, to: &bytes)
                append(d[key]!, to: &bytes)
            }
        }
    }

    private static func appendString(_ string: String, to bytes: inout [UInt8]) {
        appendNumber(UInt64(string.utf8.count), to: &bytes)
        bytes.append(contentsOf: string.utf8)
    }

    private static func appendNumber(_ value: UInt64, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: value.bigEndian) { bytes.append(contentsOf: $0) }
    }
}
