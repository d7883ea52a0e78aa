import Foundation

// How attribute values sit in SQLite columns: as in logs, dates are reals (seconds since 1970),
// UUIDs and URIs are text, floats are reals; booleans are 0 and 1; decimals are their sort key
// (`DecimalNumber.sortKey`), text whose byte order is the numbers' order, so that SQL compares
// and sorts them exactly. The attribute's declared type says how to read them back.
extension AttributeValue {
    var sqliteValue: SQLiteValue {
        switch self {
        case let .string(v): return .text(v)
        case let .integer(v): return .integer(v)
        case let .decimal(v): return .text(v.sortKey)
        case let .double(v): return .real(v)
        case let .float(v): return .real(Double(v))
        case let .boolean(v): return .integer(v ? 1 : 0)
        case let .date(v): return .real(v)
        case let .binary(v): return .blob(v)
        case let .externalBinary(reference): return .text(reference.sqliteText)
        case let .uuid(v): return .text(v.uuidString)
        case let .uri(v): return .text(v.absoluteString)
        }
    }

    init?(sqlite: SQLiteValue, type: AttributeType) {
        switch (type, sqlite) {
        case (_, .null): return nil
        case let (.string, .text(v)): self = .string(v)
        case let (.integer16, .integer(v)), let (.integer32, .integer(v)), let (.integer, .integer(v)): self = .integer(v)
        case let (.decimal, .text(v)): guard let number = DecimalNumber(sortKey: v) else { return nil }; self = .decimal(number)
        case let (.double, .real(v)): self = .double(v)
        case let (.double, .integer(v)): self = .double(Double(v))
        case let (.float, .real(v)):
            if v.isNaN { self = .float(.nan); return }
            guard let narrow = Float(exactly: v) else { return nil }
            self = .float(narrow)
        case let (.float, .integer(v)): guard let narrow = Float(exactly: v) else { return nil }; self = .float(narrow)
        case let (.boolean, .integer(v)): self = .boolean(v != 0)
        case let (.date, .real(v)): self = .date(secondsSince1970: v)
        case let (.date, .integer(v)): self = .date(secondsSince1970: Double(v))
        case let (.binary, .blob(v)), let (.transformable, .blob(v)): self = .binary(v)
        case let (.binary, .text(v)), let (.transformable, .text(v)):
            guard let reference = ExternalDataReference(sqliteText: v) else { return nil }
            self = .externalBinary(reference)
        case let (.uuid, .text(v)): guard let uuid = UUID(uuidString: v) else { return nil }; self = .uuid(uuid)
        case let (.uri, .text(v)): guard let value = AttributeValue.uri(v) else { return nil }; self = value
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

extension SQLiteStatement {
    /// Binds an attribute's value (`nil`: NULL) as `sqliteValue` would store it, without making
    /// the `SQLiteValue` first: the merge binds every value of every record it applies.
    func bind(attribute value: AttributeValue?, at index: Int32) throws(SQLiteError) {
        switch value {
        case nil: try bind(SQLiteValue.null, at: index)
        case let .string(text)?: try bind(text: text, at: index)
        case let .integer(number)?: try bind(int64: number, at: index)
        case let .double(number)?, let .date(number)?: try bind(double: number, at: index)
        case let .float(number)?: try bind(double: Double(number), at: index)
        case let .boolean(flag)?: try bind(int64: flag ? 1 : 0, at: index)
        case let value?: try bind(value.sqliteValue, at: index)
        }
    }
}
