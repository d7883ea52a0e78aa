import Foundation
import UbiquityPlist

// How attribute values travel in logs (their SQLite form is Store/AttributeValue+SQLite.swift;
// Docs/ContainerFormat.md lists each type's form). The attribute's declared type says how to
// read them back, so dates travel as reals (seconds since 1970, bit-exact), UUIDs and URIs as
// strings, decimals as their canonical text (exact, never through a Double) and floats as
// reals (a Float widens to a Double and back without change).

extension AttributeValue {
    /// The value as it appears in a transaction log.
    public var plistValue: PlistValue {
        switch self {
        case let .string(v): return .string(v)
        case let .integer(v): return .integer(v)
        case let .decimal(v): return .string(v.description)
        case let .double(v): return .real(v)
        case let .float(v): return .real(Double(v))
        case let .boolean(v): return .boolean(v)
        case let .date(v): return .real(v)
        case let .binary(v): return .data(v)
        case let .externalBinary(reference): return reference.plistValue
        case let .uuid(v): return .string(v.uuidString)
        case let .uri(v): return .string(v.absoluteString)
        }
    }

    /// Reads a logged value of the declared `type`; `nil` when it does not fit the type.
    public init?(plist: PlistValue, type: AttributeType) {
        switch (type, plist) {
        case let (.string, .string(v)): self = .string(v)
        case (.integer16, _), (.integer32, _), (.integer, _):
            guard let v = plist.int64Value else { return nil }
            self = .integer(v)
        case let (.decimal, .string(v)): guard let number = DecimalNumber(v) else { return nil }; self = .decimal(number)
        case let (.double, .real(v)): self = .double(v)
        case let (.double, .integer(v)): self = .double(Double(v))
        case (.float, .real), (.float, .integer):
            // Only a real a Float holds exactly: anything else was not written as a Float.
            guard let wide = plist.doubleValue else { return nil }
            if wide.isNaN { self = .float(.nan); return }
            guard let narrow = Float(exactly: wide) else { return nil }
            self = .float(narrow)
        case let (.boolean, .boolean(v)): self = .boolean(v)
        case let (.date, .real(v)), let (.date, .date(v)): self = .date(secondsSince1970: v)
        case let (.binary, .data(v)), let (.transformable, .data(v)): self = .binary(v)
        case (.binary, .dictionary), (.transformable, .dictionary):
            guard let reference = ExternalDataReference(plist: plist) else { return nil }
            self = .externalBinary(reference)
        case let (.uuid, .string(v)): guard let uuid = UUID(uuidString: v) else { return nil }; self = .uuid(uuid)
        case let (.uri, .string(v)): guard let value = AttributeValue.uri(v) else { return nil }; self = value
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
