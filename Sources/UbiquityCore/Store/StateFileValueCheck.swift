import CSQLite

/// The join's check of a state file's attribute values, most of them without copying them out:
/// a text in a string attribute, an integer in a boolean one, an integer in range or a finite
/// real in a number or date attribute pass `AttributeValue(sqlite:type:)` and `validateKind`
/// for certain, told by their storage class and, for numbers, the number alone. Every other
/// case ("not sure") gets the full check, so a bad value keeps its exact error.
package enum StateFileValueCheck {
    /// Whether the current row's value in `column` certainly passes the full check of `type`.
    static func passes(_ rows: SQLiteStatement, column: Int32, type: AttributeType) -> Bool {
        passes(storageClass: sqlite3_column_type(rows.handle, column), type: type,
               integer: { sqlite3_column_int64(rows.handle, column) }, real: { sqlite3_column_double(rows.handle, column) })
    }

    /// The same from a storage class (`SQLITE_INTEGER`, …) and the value's number, read only when needed.
    package static func passes(storageClass: Int32, type: AttributeType, integer: () -> Int64, real: () -> Double) -> Bool {
        switch (type, storageClass) {
        case (.string, SQLITE_TEXT), (.boolean, SQLITE_INTEGER), (.double, SQLITE_INTEGER), (.date, SQLITE_INTEGER):
            return true
        case (.integer16, SQLITE_INTEGER), (.integer32, SQLITE_INTEGER), (.integer, SQLITE_INTEGER):
            guard let range = type.integerRange else { return true }
            return range.contains(integer())
        case (.double, SQLITE_FLOAT), (.date, SQLITE_FLOAT):
            return real().isFinite
        default:
            return false
        }
    }
}
