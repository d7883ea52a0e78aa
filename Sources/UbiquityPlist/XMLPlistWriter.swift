/// Writes XML property lists in Apple's layout: its XML declaration and DOCTYPE, one element
/// per line, tab indentation, dictionary keys sorted in UTF-8 byte order.
///
/// Text escaping: `&`, `<` and `>` become entities and carriage return becomes `&#13;` (a
/// raw CR would be turned into a line feed by any XML parser). A string holding a character
/// XML 1.0 cannot contain at all (U+0000–U+0008, U+000B, U+000C, U+000E–U+001F, U+FFFE,
/// U+FFFF), `null`, and a date that is NaN, infinite or beyond ±10^14 s have no XML form:
/// encoding throws, naming where the value is, instead of writing something else (as
/// plistlib refuses). A UID is written as CoreFoundation
/// writes it, a one-entry `<dict>` with the key `CF$UID`, and read back as a UID.
struct XMLPlistWriter {
    private var out: [UInt8] = []
    /// Set when a value without an XML form was met; the walk goes on (it is cheaper to look
    /// for the culprit's path afterwards than to track paths while writing).
    private var unwritable = false

    private static let prologue = Array("""
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">

        """.utf8)

    static func encode(_ value: PlistValue) throws(PlistError) -> [UInt8] {
        var writer = XMLPlistWriter()
        writer.out.reserveCapacity(4096)
        writer.out.append(contentsOf: prologue)
        writer.write(value, depth: 0)
        if writer.unwritable { throw unwritableError(in: value) }
        writer.out.append(contentsOf: Array("</plist>\n".utf8))
        return writer.out
    }

    /// The error for the first value (in the order written) that XML cannot hold.
    static func unwritableError(in root: PlistValue) -> PlistError {
        func find(_ value: PlistValue, _ path: String) -> String? {
            switch value {
            case let .string(s):
                return firstForbidden(s).map { "the string at \(path.isEmpty ? "/" : path) holds \($0), which XML 1.0 cannot contain" }
            case .null:
                return "the null at \(path.isEmpty ? "/" : path) has no XML form"
            case let .date(t) where !t.isFinite || abs(t) > ISO8601Date.clamp:
                return "the date at \(path.isEmpty ? "/" : path) (\(t) s since 1970) has no XML date text"
            case let .array(elements):
                for (i, element) in elements.enumerated() {
                    if let found = find(element, path + "/\(i)") { return found }
                }
                return nil
            case let .dictionary(dictionary):
                for (key, element) in dictionary.sorted(by: { BinaryPlistWriter.utf8Precedes($0.key, $1.key) }) {
                    if let bad = firstForbidden(key) {
                        return "the key \(quoted(key)) in \(path.isEmpty ? "/" : path) holds \(bad), which XML 1.0 cannot contain"
                    }
                    if let found = find(element, path + "/" + key) { return found }
                }
                return nil
            default:
                return nil
            }
        }
        let what = find(root, "") ?? "a value has no XML form"
        return PlistError("XML plist: \(what); write a binary plist instead")
    }

    /// `U+0001`-style name of the first character XML 1.0 forbids in `s`, if any.
    static func firstForbidden(_ s: String) -> String? {
        for scalar in s.unicodeScalars where isForbidden(scalar.value) {
            let hex = String(scalar.value, radix: 16, uppercase: true)
            return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
        }
        return nil
    }

    private static func isForbidden(_ v: UInt32) -> Bool {
        (v < 0x20 && v != 0x09 && v != 0x0A && v != 0x0D) || v == 0xFFFE || v == 0xFFFF
    }

    /// A key as it appears in an error: quoted, with forbidden characters spelled out.
    private static func quoted(_ s: String) -> String {
        var text = "\""
        for scalar in s.unicodeScalars {
            if isForbidden(scalar.value) {
                text += "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
            } else {
                text.unicodeScalars.append(scalar)
            }
        }
        return text + "\""
    }

    private mutating func indent(_ depth: Int) {
        for _ in 0 ..< depth { out.append(0x09) }
    }

    private mutating func raw(_ s: StaticString) {
        s.withUTF8Buffer { out.append(contentsOf: $0) }
    }

    private mutating func element(_ open: StaticString, _ text: String, _ close: StaticString) {
        raw(open)
        out.append(contentsOf: text.utf8)
        raw(close)
    }

    private mutating func write(_ value: PlistValue, depth: Int) {
        indent(depth)
        switch value {
        case let .string(s):
            raw("<string>"); escape(s); raw("</string>\n")
        case let .integer(i): element("<integer>", String(i), "</integer>\n")
        case let .unsignedInteger(u): element("<integer>", String(u), "</integer>\n")
        case let .real(d): element("<real>", Self.realText(d), "</real>\n")
        case let .boolean(b): raw(b ? "<true/>\n" : "<false/>\n")
        case let .date(t):
            // -0 is written as 0 (no text tells them apart); NaN, infinities and instants
            // beyond ±10^14 s have no date text at all.
            if !t.isFinite || abs(t) > ISO8601Date.clamp { unwritable = true }
            raw("<date>"); ISO8601Date.format(t, into: &out); raw("</date>\n")
        case let .data(bytes):
            if bytes.isEmpty {
                raw("<data></data>\n")
            } else {
                raw("<data>\n")
                Base64.encode(bytes, lineLength: 76, indent: Array(repeating: 0x09, count: depth), into: &out)
                indent(depth); raw("</data>\n")
            }
        case let .array(elements):
            if elements.isEmpty { raw("<array/>\n"); return }
            raw("<array>\n")
            for element in elements { write(element, depth: depth + 1) }
            indent(depth); raw("</array>\n")
        case let .dictionary(dictionary):
            if dictionary.isEmpty { raw("<dict/>\n"); return }
            raw("<dict>\n")
            for (key, element) in dictionary.sorted(by: { BinaryPlistWriter.utf8Precedes($0.key, $1.key) }) {
                indent(depth + 1); raw("<key>"); escape(key); raw("</key>\n")
                write(element, depth: depth + 1)
            }
            indent(depth); raw("</dict>\n")
        case let .uid(u):
            raw("<dict>\n")
            indent(depth + 1); raw("<key>CF$UID</key>\n")
            indent(depth + 1); element("<integer>", String(u), "</integer>\n")
            indent(depth); raw("</dict>\n")
        case .null:
            unwritable = true
        }
    }

    /// Shortest text that reads back as the identical Double; NaN and infinities in the
    /// spelling CoreFoundation writes and both CoreFoundation and plistlib read.
    static func realText(_ d: Double) -> String {
        if d.isNaN { return "nan" }
        if d.isInfinite { return d < 0 ? "-infinity" : "+infinity" }
        return d.description
    }

    private mutating func escape(_ s: String) {
        var utf8 = s
        utf8.withUTF8 { bytes in
            // Common case: nothing to escape, one bulk copy.
            if !bytes.contains(where: { $0 < 0x20 || $0 == 0x26 || $0 == 0x3C || $0 == 0x3E || $0 == 0xEF }) {
                out.append(contentsOf: bytes)
                return
            }
            var i = 0
            let n = bytes.count
            while i < n {
                let c = bytes[i]
                switch c {
                case UInt8(ascii: "&"): raw("&amp;")
                case UInt8(ascii: "<"): raw("&lt;")
                case UInt8(ascii: ">"): raw("&gt;")
                case 0x0D: raw("&#13;")
                case 0x09, 0x0A: out.append(c)
                case 0x00 ..< 0x20: unwritable = true
                case 0xEF where i + 2 < n && bytes[i + 1] == 0xBF && (bytes[i + 2] == 0xBE || bytes[i + 2] == 0xBF):
                    unwritable = true  // U+FFFE or U+FFFF
                    i += 2
                default: out.append(c)
                }
                i += 1
            }
        }
    }
}
