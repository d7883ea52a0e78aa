/// A readable, typed rendering of a property list, in the spirit of `plutil -p`:
///
/// ```
/// {
///   "count" => 12
///   "data" => <4 bytes 0x00010203>
///   "list" => [
///     0 => "text"
///     1 => 1.5
///   ]
///   "when" => 2004-10-26T10:33:33Z
/// }
/// ```
///
/// Strings are quoted with control characters escaped; reals always show a point or an
/// exponent (`12.0`); dates are their exact XML text (or `<date nan s since 1970>` when no
/// text holds them); data shows its length and up to 64
/// bytes in hex; UIDs print as `UID(1)`; dictionary keys are in UTF-8 byte order.
public enum PlistPrinter {
    /// Data longer than this shows its first bytes only.
    static let dataPreview = 64

    public static func render(_ value: PlistValue) -> String {
        var out = ""
        write(value, depth: 0, into: &out)
        out += "\n"
        return out
    }

    private static func write(_ value: PlistValue, depth: Int, into out: inout String) {
        let pad = String(repeating: "  ", count: depth + 1)
        switch value {
        case let .string(s): out += quoted(s)
        case let .integer(i): out += String(i)
        case let .unsignedInteger(u): out += String(u)
        case let .real(d): out += d.isNaN ? "nan" : d.isInfinite ? (d < 0 ? "-inf" : "inf") : d.description
        case let .boolean(b): out += b ? "true" : "false"
        case let .date(t) where ISO8601Date.isExact(t): out += ISO8601Date.format(t)
        case let .date(t): out += "<date \(t) s since 1970>"
        case let .data(bytes):
            out += "<\(bytes.count) byte\(bytes.count == 1 ? "" : "s")"
            if !bytes.isEmpty {
                out += " 0x"
                for (i, byte) in bytes.prefix(dataPreview).enumerated() {
                    if i > 0, i % 4 == 0 { out += " " }
                    out += byte < 16 ? "0" + String(byte, radix: 16) : String(byte, radix: 16)
                }
                if bytes.count > dataPreview { out += " …" }
            }
            out += ">"
        case let .uid(u): out += "UID(\(u))"
        case .null: out += "null"
        case let .array(elements):
            if elements.isEmpty { out += "[]"; return }
            out += "[\n"
            for (i, element) in elements.enumerated() {
                out += pad + "\(i) => "
                write(element, depth: depth + 1, into: &out)
                out += "\n"
            }
            out += String(repeating: "  ", count: depth) + "]"
        case let .dictionary(dictionary):
            if dictionary.isEmpty { out += "{}"; return }
            out += "{\n"
            for (key, element) in dictionary.sorted(by: { BinaryPlistWriter.utf8Precedes($0.key, $1.key) }) {
                out += pad + quoted(key) + " => "
                write(element, depth: depth + 1, into: &out)
                out += "\n"
            }
            out += String(repeating: "  ", count: depth) + "}"
        }
    }

    /// `s` in double quotes, with `"`, `\` and control characters escaped as in Swift.
    static func quoted(_ s: String) -> String {
        var text = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": text += "\\\""
            case "\\": text += "\\\\"
            case "\n": text += "\\n"
            case "\r": text += "\\r"
            case "\t": text += "\\t"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    text += "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
                } else {
                    text.unicodeScalars.append(scalar)
                }
            }
        }
        return text + "\""
    }
}
