/// A string that equals and hashes as its exact Unicode scalars (its UTF-8 bytes).
///
/// Swift's `String` compares and hashes by canonical equivalence: "café" with a precomposed
/// é (U+00E9) equals "café" with e and a combining acute (U+0301), though their bytes differ.
/// Logs, SQLite's BINARY collation and NSString's `isEqual:` tell the two apart, so a table
/// that deduplicates user text by `String` merges two values that every other layer keeps
/// apart: a binary plist would write one object for both, and its checksum no longer matches.
/// Every table keyed by user text (values, natural keys) keys by this instead.
public struct ExactString: Hashable, Sendable, CustomStringConvertible {
    public let string: String

    public init(_ string: String) { self.string = string }

    public var description: String { string }

    public static func == (lhs: ExactString, rhs: ExactString) -> Bool { lhs.string.isExactly(rhs.string) }

    public func hash(into hasher: inout Hasher) {
        var text = string
        text.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        hasher.combine(0xFF as UInt8)  // never a UTF-8 byte: ends the text
    }
}

extension String {
    /// Whether the two strings hold the same Unicode scalars (the same UTF-8 bytes): equality
    /// without canonical equivalence, as NSString's `isEqual:` and SQLite compare text.
    @inlinable
    public func isExactly(_ other: String) -> Bool {
        let a = utf8, b = other.utf8
        guard a.count == b.count else { return false }
        if let found = a.withContiguousStorageIfAvailable({ x in
            b.withContiguousStorageIfAvailable { y in x.elementsEqual(y) }
        }), let equal = found { return equal }
        return a.elementsEqual(b)
    }

    /// Whether this string sorts before `other` by UTF-8 bytes, that is by code point: SQLite's
    /// BINARY order, consistent with `isExactly` (`String`'s `<` is not).
    public func exactlyPrecedes(_ other: String) -> Bool { BinaryPlistWriter.utf8Precedes(self, other) }
}
