import Foundation
import UbiquityPlist

/// A non-nil attribute value. `nil` (an absent optional value) is `AttributeValue?.none`.
///
/// Dates are kept as seconds since 1970 so that every peer stores and logs the identical
/// `Double`, whatever `Date` arithmetic would round to. The integer types share `.integer`
/// and the binary types `.binary`: the attribute's declared type says which it is.
public enum AttributeValue: Hashable, Sendable {
    case string(String)
    case integer(Int64)
    /// An exact decimal (Core Data's Decimal).
    case decimal(DecimalNumber)
    case double(Double)
    case float(Float)
    case boolean(Bool)
    case date(secondsSince1970: Double)
    case binary([UInt8])
    /// A binary value stored outside the row and the log (an attribute that allows external
    /// storage): its bytes are in the store's external data folder and the cloud's `.externalData`.
    case externalBinary(ExternalDataReference)
    case uuid(UUID)
    case uri(URL)

    public static func date(_ date: Date) -> AttributeValue { .date(secondsSince1970: date.timeIntervalSince1970) }

    /// The type this kind of value is natural to (`.integer` for every integer, `.binary` for
    /// binary and transformable values); `AttributeType.accepts` says where a value fits.
    public var type: AttributeType {
        switch self {
        case .string: return .string
        case .integer: return .integer
        case .decimal: return .decimal
        case .double: return .double
        case .float: return .float
        case .boolean: return .boolean
        case .date: return .date
        case .binary, .externalBinary: return .binary
        case .uuid: return .uuid
        case .uri: return .uri
        }
    }

    public var stringValue: String? { if case let .string(v) = self { return v } else { return nil } }
    public var integerValue: Int64? { if case let .integer(v) = self { return v } else { return nil } }
    public var decimalValue: DecimalNumber? { if case let .decimal(v) = self { return v } else { return nil } }
    public var doubleValue: Double? { if case let .double(v) = self { return v } else { return nil } }
    public var floatValue: Float? { if case let .float(v) = self { return v } else { return nil } }
    public var boolValue: Bool? { if case let .boolean(v) = self { return v } else { return nil } }
    public var binaryValue: [UInt8]? { if case let .binary(v) = self { return v } else { return nil } }
    public var externalReference: ExternalDataReference? { if case let .externalBinary(v) = self { return v } else { return nil } }
    public var uriValue: URL? { if case let .uri(v) = self { return v } else { return nil } }
    public var dateValue: Date? {
        if case let .date(v) = self { return Date(timeIntervalSince1970: v) } else { return nil }
    }
}

extension AttributeValue {
    /// As the synthesized equality, but strings compare by their exact scalars: a title
    /// changed from "café" with a precomposed é to one with a combining accent is a change,
    /// as it is to the store and the log, and a conflict between them is a conflict.
    public static func == (lhs: AttributeValue, rhs: AttributeValue) -> Bool {
        switch (lhs, rhs) {
        case let (.string(a), .string(b)): return a.isExactly(b)
        case let (.integer(a), .integer(b)): return a == b
        case let (.decimal(a), .decimal(b)): return a == b
        case let (.double(a), .double(b)): return a == b
        case let (.float(a), .float(b)): return a == b
        case let (.boolean(a), .boolean(b)): return a == b
        case let (.date(a), .date(b)): return a == b
        case let (.binary(a), .binary(b)): return a == b
        case let (.externalBinary(a), .externalBinary(b)): return a == b
        case let (.uuid(a), .uuid(b)): return a == b
        case let (.uri(a), .uri(b)): return a == b
        default: return false
        }
    }

    public func hash(into hasher: inout Hasher) {
        switch self {
        case let .string(v): hasher.combine(0 as UInt8); hasher.combine(ExactString(v))
        case let .integer(v): hasher.combine(1 as UInt8); hasher.combine(v)
        case let .decimal(v): hasher.combine(2 as UInt8); hasher.combine(v)
        case let .double(v): hasher.combine(3 as UInt8); hasher.combine(v)
        case let .float(v): hasher.combine(4 as UInt8); hasher.combine(v)
        case let .boolean(v): hasher.combine(5 as UInt8); hasher.combine(v)
        case let .date(v): hasher.combine(6 as UInt8); hasher.combine(v)
        case let .binary(v): hasher.combine(7 as UInt8); hasher.combine(v)
        case let .externalBinary(v): hasher.combine(8 as UInt8); hasher.combine(v)
        case let .uuid(v): hasher.combine(9 as UInt8); hasher.combine(v)
        case let .uri(v): hasher.combine(10 as UInt8); hasher.combine(v)
        }
    }
}

extension AttributeValue: CustomStringConvertible {
    /// A short human-readable form, as the CLI prints it.
    public var description: String {
        switch self {
        case let .string(v): return v
        case let .integer(v): return String(v)
        case let .decimal(v): return v.description
        case let .double(v): return String(v)
        case let .float(v): return String(v)
        case let .boolean(v): return v ? "true" : "false"
        case let .date(v):
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
            return formatter.string(from: Date(timeIntervalSince1970: v))
        case let .binary(v): return "<\(v.count) bytes>"
        case let .externalBinary(reference): return reference.description
        case let .uuid(v): return v.uuidString
        case let .uri(v): return v.absoluteString
        }
    }
}

extension AttributeType {
    /// Parses the textual form used by the CLI and model files (`title=Hello`, `pinned=true`,
    /// `created=2024-05-01T10:00:00Z` or `created=2024-05-01`, `data=base64:AAEC`, `price=12.50`, `link=https://…`;
    /// `data=sha256:<hex>:<size>` names an external value the store holds already).
    /// Integers are read whole; whether they fit a narrower type is validation's to say.
    public func parse(_ text: String) -> AttributeValue? {
        switch self {
        case .string: return .string(text)
        case .integer16, .integer32, .integer: return Int64(text).map(AttributeValue.integer)
        case .decimal: return DecimalNumber(text).map(AttributeValue.decimal)
        case .double: return Double(text).map(AttributeValue.double)
        case .float: return Float(text).map(AttributeValue.float)
        case .boolean:
            switch text.lowercased() {
            case "true", "yes", "1": return .boolean(true)
            case "false", "no", "0": return .boolean(false)
            default: return nil
            }
        case .date:
            if let seconds = Double(text) { return .date(secondsSince1970: seconds) }
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
            if let date = formatter.date(from: text) { return .date(date) }
            formatter.formatOptions = [.withInternetDateTime]
            if let date = formatter.date(from: text) { return .date(date) }
            // A day alone (`2024-05-01`) is its midnight in UTC, as a date-only field reads.
            formatter.formatOptions = [.withFullDate]
            return formatter.date(from: text).map(AttributeValue.date)
        case .binary, .transformable:
            // `sha256:<hex>:<size>`: an external value already in the store's folder (base64 has no ':').
            if text.hasPrefix("sha256:") { return ExternalDataReference(sqliteText: text).map(AttributeValue.externalBinary) }
            let payload = text.hasPrefix("base64:") ? String(text.dropFirst(7)) : text
            return Data(base64Encoded: payload).map { .binary([UInt8]($0)) }
        case .uuid: return UUID(uuidString: text).map(AttributeValue.uuid)
        case .uri: return AttributeValue.uri(text)
        case .undefined: return nil
        }
    }
}

extension AttributeValue {
    /// A URI value from its text: `nil` unless it parses as a URL and reads back as the same text
    /// (so that every peer logs, stores and compares the identical string).
    public static func uri(_ text: String) -> AttributeValue? {
        guard !text.isEmpty, let url = URL(string: text), url.absoluteString == text else { return nil }
        return .uri(url)
    }
}
