/// A property-list file in any form a tool meets — binary, XML or typed JSON — read with
/// its format detected, and written in any of the three. The logic behind `ubiq plist`.
public struct PlistDocument: Sendable {
    /// The three file forms.
    public enum Format: String, Sendable, CaseIterable {
        case xml
        case binary
        case json
    }

    public var value: PlistValue
    /// The form the document was read from.
    public var format: Format

    /// Limits for files a person hands to a tool: as `PlistLimits.default`, but nesting up
    /// to 512 (plistlib writes and reads deeper files than the library's own; the XML reader
    /// is held to about 254 by libxml2 regardless).
    public static let toolLimits = PlistLimits(maxDepth: 512)

    public init(value: PlistValue, format: Format) {
        self.value = value
        self.format = format
    }

    /// Reads `bytes`, detecting the format (`detectFormat`).
    public init(decoding bytes: [UInt8], limits: PlistLimits = toolLimits) throws(PlistError) {
        guard let format = Self.detectFormat(bytes) else {
            throw PlistError("not a property list: neither a \"bplist00\" header, XML nor JSON", location: .byteOffset(0))
        }
        self.format = format
        switch format {
        case .binary, .xml: value = try PropertyListCodec.decode(bytes, limits: limits)
        case .json: value = try PlistJSON.decode(bytes, limits: limits)
        }
    }

    /// `.binary` for a `bplist00` header, `.xml` when the first non-blank character is `<`
    /// (or the text is UTF-16 with a byte-order mark), `.json` when it opens a JSON value
    /// (`{`, `[`, `"`, a digit, `-`, `true`, `false`, `null`); nil otherwise (also when empty).
    public static func detectFormat(_ bytes: [UInt8]) -> Format? {
        switch PropertyListCodec.detectFormat(bytes) {
        case .binary: return .binary
        case .xml: return .xml
        case nil: break
        }
        var i = 0
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { i = 3 }
        while i < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[i]) { i += 1 }
        guard i < bytes.count else { return nil }
        switch bytes[i] {
        case UInt8(ascii: "{"), UInt8(ascii: "["), UInt8(ascii: "\""), UInt8(ascii: "-"), 0x30 ... 0x39,
             UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "n"):
            return .json
        default:
            return nil
        }
    }

    /// The document's value written as `format` (`jsonStyle` applies to JSON). Throws when
    /// the value has no form there: XML for a control character or null, plain JSON for
    /// NaN or an infinity.
    public func encoded(as format: Format, jsonStyle: PlistJSON.Style = .typed) throws(PlistError) -> [UInt8] {
        switch format {
        case .binary: return PropertyListCodec.encodeBinary(value)
        case .xml: return try PropertyListCodec.encode(value, format: .xml)
        case .json: return try PlistJSON.encode(value, style: jsonStyle)
        }
    }

    /// The readable rendering `ubiq plist print` shows (see `PlistPrinter`).
    public var rendered: String { PlistPrinter.render(value) }
}
