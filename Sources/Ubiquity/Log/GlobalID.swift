import Foundation

/// An object's identity across peers: `<entity>/<key>`, where the key is a UUID or an
/// app-supplied natural key (so two peers creating "the same" object do not duplicate it).
public struct GlobalID: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let entity: String
    public let key: String

    /// A new object identity with a random UUID key.
    public init(entity: String) {
        self.entity = entity
        self.key = UUID().uuidString
    }

    /// An identity with an app-chosen natural key. The key must be 1–200 printable characters
    /// (no control characters); it may hold `/`.
    public init(entity: String, key: String) throws(GlobalIDError) {
        guard Identifier.isValid(entity) else { throw GlobalIDError(text: "\(entity)/\(key)", reason: "invalid entity name") }
        guard !key.isEmpty, key.utf8.count <= 200 else { throw GlobalIDError(text: key, reason: "a key must hold 1 to 200 bytes") }
        guard !Self.containsControlCharacter(key) else {
            throw GlobalIDError(text: key, reason: "a key must not hold control characters")
        }
        self.entity = entity
        self.key = key
    }

    /// Parses `<entity>/<key>`.
    public init(_ text: String) throws(GlobalIDError) {
        guard let slash = text.firstIndex(of: "/") else { throw GlobalIDError(text: text, reason: "expected <Entity>/<key>") }
        try self.init(entity: String(text[..<slash]), key: String(text[text.index(after: slash)...]))
    }

    public var description: String { "\(entity)/\(key)" }

    /// C0 and C1 control characters and DEL, checked on the UTF-8 bytes (this runs for every
    /// object ID an import reads).
    private static func containsControlCharacter(_ text: String) -> Bool {
        var previous: UInt8 = 0
        for byte in text.utf8 {
            if byte < 0x20 || byte == 0x7f || (previous == 0xc2 && byte >= 0x80 && byte <= 0x9f) { return true }
            previous = byte
        }
        return false
    }

    public static func < (lhs: GlobalID, rhs: GlobalID) -> Bool { lhs.description < rhs.description }
}

/// A global ID that cannot be used, with the reason.
public struct GlobalIDError: Error, CustomStringConvertible, Sendable {
    public let text: String
    public let reason: String
    public var description: String { "invalid object ID '\(text.prefix(80))': \(reason)" }
}
