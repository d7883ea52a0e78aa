import Foundation
import UbiquityPlist

/// An object's identity across peers: `<entity>/<key>`, where the key is a UUID or an
/// app-supplied natural key (so two peers creating "the same" object do not duplicate it).
public struct GlobalID: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let entity: String
    /// `<entity>/<key>`, kept whole: logs, rows and bindings all use this text, and an import
    /// would otherwise build it again for every object it applies.
    public let description: String

    /// The part after the entity and its slash.
    public var key: String { String(description[description.utf8.index(description.startIndex, offsetBy: entity.utf8.count + 1)...]) }

    /// A new object identity with a random UUID key.
    public init(entity: String) {
        self.entity = entity
        description = entity + "/" + UUID().uuidString
    }

    /// An identity with an app-chosen natural key. The key must be 1–200 printable characters
    /// (no control characters); it may hold `/`.
    public init(entity: String, key: String) throws(GlobalIDError) {
        try self.init(entity: entity, key: Substring(key), text: nil)
    }

    /// Parses `<entity>/<key>`.
    public init(_ text: String) throws(GlobalIDError) {
        // Searched as bytes: an import parses every object ID it reads.
        guard let slash = text.utf8.firstIndex(of: UInt8(ascii: "/")) else { throw GlobalIDError(text: text, reason: .missingSlash) }
        try self.init(entity: String(text[..<slash]), key: text[text.utf8.index(after: slash)...], text: text)
    }

    /// An ID this store wrote itself (validated when it came in): only split, not checked again.
    init?(stored text: String) {
        guard let slash = text.utf8.firstIndex(of: UInt8(ascii: "/")) else { return nil }
        entity = String(text[..<slash])
        description = text
    }

    /// An ID a log reader checked itself (`isValidASCIIKey` on the key's bytes, the entity
    /// being a name of the model): only put together.
    init(checkedEntity entity: String, description: String) {
        self.entity = entity
        self.description = description
    }

    /// Whether the ASCII bytes of a key pass `init(_:)`'s checks: 1–200 bytes, no control
    /// character (for ASCII: below 0x20, or DEL).
    static func isValidASCIIKey(_ key: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = key.baseAddress.map(UnsafeRawPointer.init), !key.isEmpty, key.count <= 200 else { return false }
        // Eight bytes at a time (every object ID of an import comes through here): the bytes are
        // ASCII, so a byte below 0x20 or equal to 0x7f sets its lane's top bit in one of these.
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        var i = 0
        while key.count - i >= 8 {
            let word = base.loadUnaligned(fromByteOffset: i, as: UInt64.self)
            let del = word ^ (ones &* 0x7f)
            if (word &- ones &* 0x20) & ~word & highs != 0 || (del &- ones) & ~del & highs != 0 { return false }
            i += 8
        }
        while i < key.count {
            if key[i] < 0x20 || key[i] == 0x7f { return false }
            i += 1
        }
        return true
    }

    /// Validates the parts; `text`, when given, is already `<entity>/<key>`.
    private init(entity: String, key: Substring, text: String?) throws(GlobalIDError) {
        guard Identifier.isValid(entity) else { throw GlobalIDError(text: "\(entity)/\(key)", reason: .invalidEntityName) }
        guard !key.isEmpty, key.utf8.count <= 200 else { throw GlobalIDError(text: String(key), reason: .keyLength) }
        guard !Self.containsControlCharacter(key) else {
            throw GlobalIDError(text: String(key), reason: .controlCharacter)
        }
        self.entity = entity
        description = text ?? entity + "/" + key
    }

    /// The same exact scalars (UTF-8 bytes), as SQLite's `gid` keys compare: a natural key
    /// "café" with a precomposed é and one with a combining accent are two objects in every
    /// store and log, so they are two here (`String`'s `==` would merge them in every set and
    /// table of IDs: a context's inserts, an import's changes, a migration's copies).
    public static func == (lhs: GlobalID, rhs: GlobalID) -> Bool { lhs.description.isExactly(rhs.description) }

    public func hash(into hasher: inout Hasher) { hasher.combine(ExactString(description)) }

    /// C0 and C1 control characters and DEL, checked on the UTF-8 bytes (this runs for every
    /// object ID an import reads).
    private static func containsControlCharacter(_ text: Substring) -> Bool {
        // Over the contiguous bytes when there are (always, for a native string): iterating a
        // Substring's UTF-8 view costs an index check per byte.
        if let found = text.utf8.withContiguousStorageIfAvailable(containsControlCharacter) { return found }
        return containsControlCharacter(Array(text.utf8)[...])
    }

    private static func containsControlCharacter<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> Bool {
        var previous: UInt8 = 0
        for byte in bytes {
            if byte < 0x20 || byte == 0x7f || (previous == 0xc2 && byte >= 0x80 && byte <= 0x9f) { return true }
            previous = byte
        }
        return false
    }

    /// By UTF-8 bytes (code points), as SQLite's BINARY collation sorts `gid`, consistent with `==`.
    public static func < (lhs: GlobalID, rhs: GlobalID) -> Bool { lhs.description.exactlyPrecedes(rhs.description) }
}

/// A global ID that cannot be used, with the reason.
public struct GlobalIDError: Error, CustomStringConvertible, Equatable, Sendable {
    /// Why a global ID is refused.
    public enum Reason: Equatable, Sendable, CustomStringConvertible {
        /// The text has no `/` between the entity and the key.
        case missingSlash
        /// The entity part is not an identifier.
        case invalidEntityName
        /// The key is empty or longer than 200 UTF-8 bytes.
        case keyLength
        /// The key holds a control character.
        case controlCharacter

        public var description: String {
            switch self {
            case .missingSlash: "expected <Entity>/<key>"
            case .invalidEntityName: "invalid entity name"
            case .keyLength: "a key must hold 1 to 200 bytes"
            case .controlCharacter: "a key must not hold control characters"
            }
        }
    }

    /// The refused text (the whole ID, or the key alone when only the key is wrong).
    public let text: String
    public let reason: Reason
    public var description: String { "invalid object ID '\(text.prefix(80))': \(reason)" }
}
