import Foundation

/// A property-list value: the data model shared by the binary (`bplist00`) and XML codecs.
///
/// Integers keep the full signed and unsigned 64-bit range: values above `Int64.max` are
/// `.unsignedInteger`, everything else is `.integer`. Dates are seconds since 1970 at full
/// `Double` precision. Dictionaries have string keys (the only kind Apple's tools write);
/// a `Dictionary` cannot hold two keys that differ only in Unicode normalisation, so the
/// readers refuse a file whose dictionary has such keys rather than keep one of them.
/// `uid` and `null` occur in binary plists only (keyed archives; `NSNull`): the XML writer
/// writes a UID as CoreFoundation does and refuses null.
public enum PlistValue: Sendable {
    case string(String)
    case integer(Int64)
    case unsignedInteger(UInt64)
    case real(Double)
    case boolean(Bool)
    /// Seconds since 1970-01-01T00:00:00Z.
    case date(Double)
    case data([UInt8])
    case array([PlistValue])
    case dictionary([String: PlistValue])
    /// A keyed archive's object reference (`CFKeyedArchiverUID`, plistlib's `UID`).
    case uid(UInt64)
    /// The binary format's null object (`NSNull`, plistlib's `None`).
    case null
}

extension PlistValue: Equatable {
    /// Structural equality; reals and dates compare by bit pattern so that NaN equals NaN and
    /// a round trip can be checked exactly, and strings and keys by their exact scalars
    /// (`String`'s `==` would call an é precomposed and decomposed equal, which no file does).
    public static func == (lhs: PlistValue, rhs: PlistValue) -> Bool {
        switch (lhs, rhs) {
        case let (.string(a), .string(b)): return a.isExactly(b)
        case let (.integer(a), .integer(b)): return a == b
        case let (.unsignedInteger(a), .unsignedInteger(b)): return a == b
        case let (.real(a), .real(b)): return a.bitPattern == b.bitPattern || (a.isNaN && b.isNaN)
        case let (.boolean(a), .boolean(b)): return a == b
        case let (.date(a), .date(b)): return a.bitPattern == b.bitPattern
        case let (.data(a), .data(b)): return a == b
        case let (.array(a), .array(b)): return a == b
        case let (.dictionary(a), .dictionary(b)):
            guard a.count == b.count else { return false }
            for (key, value) in a {
                guard let index = b.index(forKey: key), b[index].key.isExactly(key), b[index].value == value else { return false }
            }
            return true
        case let (.uid(a), .uid(b)): return a == b
        case (.null, .null): return true
        default: return false
        }
    }
}

extension PlistValue {
    public var stringValue: String? { if case let .string(s) = self { return s } else { return nil } }
    public var arrayValue: [PlistValue]? { if case let .array(a) = self { return a } else { return nil } }
    public var dictionaryValue: [String: PlistValue]? {
        if case let .dictionary(d) = self { return d } else { return nil }
    }
    public var boolValue: Bool? { if case let .boolean(b) = self { return b } else { return nil } }
    public var dataValue: [UInt8]? { if case let .data(d) = self { return d } else { return nil } }
    public var dateValue: Double? { if case let .date(d) = self { return d } else { return nil } }
    /// The value as a signed integer, if it is an integer that fits.
    public var int64Value: Int64? {
        switch self {
        case let .integer(i): return i
        case let .unsignedInteger(u): return u <= UInt64(Int64.max) ? Int64(u) : nil
        default: return nil
        }
    }
    /// The value as a real; integers convert.
    public var doubleValue: Double? {
        switch self {
        case let .real(d): return d
        case let .integer(i): return Double(i)
        case let .unsignedInteger(u): return Double(u)
        default: return nil
        }
    }
    public subscript(key: String) -> PlistValue? { dictionaryValue?[key] }
}
