import Foundation
import UbiquityPlist

// How attribute values travel in logs (their SQLite form is Store/AttributeValue+SQLite.swift).
// The attribute's declared type says how to read them back, so dates travel as reals (seconds
// since 1970, bit-exact) and UUIDs as strings.

extension AttributeValue {
    /// The value as it appears in a transaction log.
    public var plistValue: PlistValue {
        switch self {
        case let .string(v): return .string(v)
        case let .integer(v): return .integer(v)
        case let .double(v): return .real(v)
        case let .boolean(v): return .boolean(v)
        case let .date(v): return .real(v)
        case let .binary(v): return .data(v)
        case let .uuid(v): return .string(v.uuidString)
        }
    }

    /// Reads a logged value of the declared `type`; `nil` when it does not fit the type.
    public init?(plist: PlistValue, type: AttributeType) {
        switch (type, plist) {
        case let (.string, .string(v)): self = .string(v)
        case (.integer, _): guard let v = plist.int64Value else { return nil }; self = .integer(v)
        case let (.double, .real(v)): self = .double(v)
        case let (.double, .integer(v)): self = .double(Double(v))
        case let (.boolean, .boolean(v)): self = .boolean(v)
        case let (.date, .real(v)), let (.date, .date(v)): self = .date(secondsSince1970: v)
        case let (.binary, .data(v)): self = .binary(v)
        case let (.uuid, .string(v)): guard let uuid = UUID(uuidString: v) else { return nil }; self = .uuid(uuid)
        default: return nil
        }
    }
}

extension Optional where Wrapped == AttributeValue {
    /// Logs carry an absent value as an empty dictionary: plists have no null, and no attribute
    /// value is ever a dictionary.
    var plistValue: PlistValue { self?.plistValue ?? .dictionary([:]) }
}

extension PlistValue {
    /// Whether this is the logged form of an absent value.
    var isNullMarker: Bool { if case let .dictionary(d) = self { return d.isEmpty } else { return false } }
}
