/// Writes XML property lists in Apple's layout: its XML declaration and DOCTYPE, one element
/// per line, tab indentation, dictionary keys sorted in UTF-8 byte order.
///
/// Text escaping: `&`, `<` and `>` become entities and carriage return becomes `&#13;` (a
/// raw CR would be turned into a line feed by any XML parser). Characters XML 1.0 cannot
/// hold at all (U+0000–U+0008, U+000B, U+000C, U+000E–U+001F, U+FFFE, U+FFFF) are replaced
/// by U+FFFD, so the output is always well-formed; such strings do not round-trip, and
/// binary plists should be used for them.
struct XMLPlistWriter {
    private var out: [UInt8] = []

    private static let prologue = Array("""
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">

        """.utf8)

    static func encode(_ value: PlistValue) -> [UInt8] {
        var writer = XMLPlistWriter()
        writer.out.reserveCapacity(4096)
        writer.out.append(contentsOf: prologue)
        writer.write(value, depth: 0)
        writer.out.append(contentsOf: Array("</plist>\n".utf8))
        return writer.out
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
                case 0x00 ..< 0x20: raw("\u{FFFD}")
                case 0xEF where i + 2 < n && bytes[i + 1] == 0xBF && (bytes[i + 2] == 0xBE || bytes[i + 2] == 0xBF):
                    raw("\u{FFFD}")  // U+FFFE or U+FFFF
                    i += 2
                default: out.append(c)
                }
                i += 1
            }
        }
    }
}
