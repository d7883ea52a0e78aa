/// Why a property list could not be decoded, and where.
///
/// Every failure of the readers is reported as a `PlistError`; the readers never trap on
/// malformed or hostile input.
public struct PlistError: Error, CustomStringConvertible, Sendable {
    /// Where in the input the problem was found.
    public enum Location: Sendable, Equatable {
        /// Offset from the start of a binary plist.
        case byteOffset(Int)
        /// 1-based line and column in an XML plist.
        case lineColumn(line: Int, column: Int)
        case none
    }

    /// What went wrong, prefixed with the format ("binary plist: …", "XML plist: …").
    public let message: String
    public let location: Location

    public init(_ message: String, location: Location = .none) {
        self.message = message
        self.location = location
    }

    /// The message followed by the location, e.g.
    /// `binary plist: offset table entry 12 points past the end of the file (byte offset 2048)`.
    public var description: String {
        switch location {
        case let .byteOffset(offset): return "\(message) (byte offset \(offset))"
        case let .lineColumn(line, column): return "\(message) (line \(line), column \(column))"
        case .none: return message
        }
    }
}
