/// Writes a `PlistValue` as JSON, typed (lossless) or plain (see `PlistJSON`).
///
/// Output is pretty-printed with two-space indentation, dictionary keys in UTF-8 byte
/// order, and a final newline, so equal values give identical text.
struct PlistJSONWriter {
    private let style: PlistJSON.Style
    private var out: [UInt8] = []

    static func encode(_ value: PlistValue, style: PlistJSON.Style) throws(PlistError) -> [UInt8] {
        var writer = PlistJSONWriter(style: style)
        try writer.write(value, depth: 0, path: "")
        writer.out.append(0x0A)
        return writer.out
    }

    private init(style: PlistJSON.Style) {
        self.style = style
        out.reserveCapacity(4096)
    }

    private mutating func raw(_ s: String) { out.append(contentsOf: s.utf8) }

    private mutating func indent(_ depth: Int) {
        out.append(contentsOf: repeatElement(UInt8(ascii: " "), count: 2 * depth))
    }

    /// `{"$tag": text}` in typed style, the bare `text` in plain style.
    private mutating func tagged(_ tag: String, _ text: String) {
        if style == .typed { raw("{\"\(tag)\": ") }
        raw(text)
        if style == .typed { raw("}") }
    }

    private mutating func write(_ value: PlistValue, depth: Int, path: String) throws(PlistError) {
        switch value {
        case let .string(s): string(s)
        case let .integer(i): raw(String(i))
        case let .unsignedInteger(u): raw(String(u))
        case let .real(d):
            if d.isFinite {
                raw(d.description)  // always holds "." or "e", so it reads back as a real
            } else if style == .typed {
                tagged("$real", d.isNaN ? "\"nan\"" : d < 0 ? "\"-inf\"" : "\"inf\"")
            } else {
                throw PlistError("JSON: the real at \(path.isEmpty ? "/" : path) is \(d.isNaN ? "nan" : d < 0 ? "-inf" : "inf"), which plain JSON cannot hold; use typed JSON")
            }
        case let .boolean(b): raw(b ? "true" : "false")
        case let .date(t) where ISO8601Date.isExact(t):
            var text: [UInt8] = [UInt8(ascii: "\"")]
            ISO8601Date.format(t, into: &text)
            text.append(UInt8(ascii: "\""))
            tagged("$date", String(decoding: text, as: UTF8.self))
        case let .date(t):
            // No date text holds it exactly: seconds since 1970, as a number or "nan"/"inf"/"-inf".
            if t.isFinite {
                tagged("$date", t.description)
            } else if style == .typed {
                tagged("$date", t.isNaN ? "\"nan\"" : t < 0 ? "\"-inf\"" : "\"inf\"")
            } else {
                throw PlistError("JSON: the date at \(path.isEmpty ? "/" : path) is \(t) s since 1970, which plain JSON cannot hold; use typed JSON")
            }
        case let .data(bytes):
            var text: [UInt8] = [UInt8(ascii: "\"")]
            Base64.encode(bytes, lineLength: .max, indent: [], into: &text)
            if text.last == 0x0A { text.removeLast() }  // the encoder ends its last line
            text.append(UInt8(ascii: "\""))
            tagged("$data", String(decoding: text, as: UTF8.self))
        case let .uid(u): tagged("$uid", String(u))
        case .null: raw("null")
        case let .array(elements):
            if elements.isEmpty { raw("[]"); return }
            raw("[\n")
            for (i, element) in elements.enumerated() {
                indent(depth + 1)
                try write(element, depth: depth + 1, path: path + "/\(i)")
                raw(i + 1 < elements.count ? ",\n" : "\n")
            }
            indent(depth); raw("]")
        case let .dictionary(dictionary):
            if dictionary.isEmpty { raw("{}"); return }
            // A lone "$…" key would read back as a typed value: wrap the dictionary.
            let wrap = style == .typed && dictionary.count == 1 && dictionary.keys.first!.hasPrefix("$")
            if wrap { raw("{\"$dict\": ") }
            raw("{\n")
            let entries = dictionary.sorted { BinaryPlistWriter.utf8Precedes($0.key, $1.key) }
            for (i, entry) in entries.enumerated() {
                indent(depth + 1)
                string(entry.key)
                raw(": ")
                try write(entry.value, depth: depth + 1, path: path + "/" + entry.key)
                raw(i + 1 < entries.count ? ",\n" : "\n")
            }
            indent(depth); raw("}")
            if wrap { raw("}") }
        }
    }

    private mutating func string(_ s: String) {
        out.append(UInt8(ascii: "\""))
        for byte in s.utf8 {
            switch byte {
            case UInt8(ascii: "\""): raw("\\\"")
            case UInt8(ascii: "\\"): raw("\\\\")
            case 0x0A: raw("\\n")
            case 0x0D: raw("\\r")
            case 0x09: raw("\\t")
            case 0x08: raw("\\b")
            case 0x0C: raw("\\f")
            case 0x00 ..< 0x20:
                let hex = String(byte, radix: 16)
                raw("\\u00" + (hex.count == 1 ? "0" : "") + hex)
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}
