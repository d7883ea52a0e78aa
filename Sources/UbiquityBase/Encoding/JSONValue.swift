import Foundation

/// A JSON value with a deterministic text form (object keys sorted, shortest round-trip
/// numbers), so that two peers with the same state print byte-identical output.
public indirect enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// The JSON text; `pretty` indents by two spaces.
    public func text(pretty: Bool = false) -> String {
        var output = ""
        write(to: &output, pretty: pretty, indent: 0)
        return output
    }

    private func write(to output: inout String, pretty: Bool, indent: Int) {
        switch self {
        case .null: output += "null"
        case let .bool(b): output += b ? "true" : "false"
        case let .int(i): output += String(i)
        case let .double(d):
            // JSON has no NaN or infinity: such reals are written as strings.
            if d.isFinite { output += d == d.rounded() && abs(d) < 1e15 ? String(Int64(d)) + ".0" : String(d) } else { Self.string(String(d), to: &output) }
        case let .string(s): Self.string(s, to: &output)
        case let .array(elements):
            guard !elements.isEmpty else { output += "[]"; return }
            output += "["
            for (index, element) in elements.enumerated() {
                if index > 0 { output += "," }
                if pretty { output += "\n" + String(repeating: "  ", count: indent + 1) }
                element.write(to: &output, pretty: pretty, indent: indent + 1)
            }
            if pretty { output += "\n" + String(repeating: "  ", count: indent) }
            output += "]"
        case let .object(fields):
            guard !fields.isEmpty else { output += "{}"; return }
            output += "{"
            for (index, key) in fields.keys.sorted().enumerated() {
                if index > 0 { output += "," }
                if pretty { output += "\n" + String(repeating: "  ", count: indent + 1) }
                Self.string(key, to: &output)
                output += pretty ? ": " : ":"
                fields[key]!.write(to: &output, pretty: pretty, indent: indent + 1)
            }
            if pretty { output += "\n" + String(repeating: "  ", count: indent) }
            output += "}"
        }
    }

    /// Whether `s` holds a byte JSON escapes (a control character, `"` or `\\`): a plain
    /// pointer loop, which a debug build runs without generic calls per byte.
    private static func needsEscape(_ s: String) -> Bool {
        var s = s
        return s.withUTF8 { bytes in
            guard let base = bytes.baseAddress else { return false }
            var index = 0
            while index < bytes.count {
                let byte = base[index]
                if byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { return true }
                index += 1
            }
            return false
        }
    }

    private static func string(_ s: String, to output: inout String) {
        output += "\""
        // Most strings need no escape: appended whole, not scalar by scalar (a device's state
        // goes to the runner as JSON after every step of a scenario).
        if !Self.needsEscape(s) {
            output += s
            output += "\""
            return
        }
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                output += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: output.unicodeScalars.append(scalar)
            }
        }
        output += "\""
    }
}
