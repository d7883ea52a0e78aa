import Foundation

// How attribute values sit in SQLite columns: as in logs, dates are reals (seconds since 1970)
// and UUIDs are text; booleans are 0 and 1. The attribute's declared type says how to read
// them back.
extension AttributeValue {
    var sqliteValue: SQLiteValue {
        switch self {
        case let .string(v): return .text(v)
        case let .integer(v): return .integer(v)
        case let .double(v): return .real(v)
        case let .boolean(v): return .integer(v ? 1 : 0)
        case let .date(v): return .real(v)
        case let .binary(v): return .blob(v)
        case let .uuid(v): return .text(v.uuidString)
        }
    }

    init?(sqlite: SQLiteValue, type: AttributeType) {
        switch (type, sqlite) {
        case (_, .null): return nil
        case let (.string, .text(v)): self = .string(v)
        case let (.integer, .integer(v)): self = .integer(v)
        case let (.double, .real(v)): self = .double(v)
        case let (.double, .integer(v)): self = .double(Double(v))
        case let (.boolean, .integer(v)): self = .boolean(v != 0)
        case let (.date, .real(v)): self = .date(secondsSince1970: v)
        case let (.date, .integer(v)): self = .date(secondsSince1970: Double(v))
        case let (.binary, .blob(v)): self = .binary(v)
        case let (.uuid, .text(v)): guard let uuid = UUID(uuidString: v) else { return nil }; self = .uuid(uuid)
        default: return nil
        }
    }
}

extension Optional where Wrapped == AttributeValue {
    var sqliteValue: SQLiteValue { self?.sqliteValue ?? .null }
}

extension SQLiteValue {
    /// The attribute type a stored value reads back as when no declaration says (text as a
    /// string, blobs as binary); `nil` for NULL.
    var attributeType: AttributeType? {
        switch self {
        case .null: return nil
        case .integer: return .integer
        case .real: return .double
        case .text: return .string
        case .blob: return .binary
        }
    }
}
