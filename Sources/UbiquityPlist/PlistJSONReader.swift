/// Reads typed JSON (`PlistJSON`) back into a `PlistValue`: strict RFC 8259 JSON, with the
/// typed wrappers `{"$date": …}`, `{"$data": …}`, `{"$uid": …}`, `{"$real": …}` and
/// `{"$dict": {…}}` turned back into the values they stand for.
///
/// A number with a fraction or exponent is a real, one without an integer. Errors carry the
/// line and column of the offending character. Nesting is bounded by `limits.maxDepth`
/// (the reader recurses).
struct PlistJSONReader {
    private let bytes: UnsafeBufferPointer<UInt8>
    private let limits: PlistLimits
    private var i = 0
    private var produced = 0

    static func decode(_ bytes: UnsafeBufferPointer<UInt8>, limits: PlistLimits) throws(PlistError) -> PlistValue {
        if bytes.count > limits.maxBytes {
            throw PlistError("JSON: file is \(bytes.count) bytes, more than the limit of \(limits.maxBytes)",
                             location: .byteOffset(limits.maxBytes))
        }
        var reader = PlistJSONReader(bytes: bytes, limits: limits)
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { reader.i = 3 }
        reader.skipBlanks()
        let value = try reader.value(depth: 0)
        reader.skipBlanks()
        if reader.i < bytes.count { throw reader.fail("unexpected text after the top-level value") }
        return value
    }

    private init(bytes: UnsafeBufferPointer<UInt8>, limits: PlistLimits) {
        self.bytes = bytes
        self.limits = limits
    }

    /// An error at the current position, located by line and column (columns count bytes).
    private func fail(_ message: String, at position: Int? = nil) -> PlistError {
        let end = min(position ?? i, bytes.count)
        var line = 1, lineStart = 0
        for k in 0 ..< end where bytes[k] == 0x0A {
            line += 1
            lineStart = k + 1
        }
        return PlistError("JSON: " + message, location: .lineColumn(line: line, column: end - lineStart + 1))
    }

    private mutating func skipBlanks() {
        while i < bytes.count, bytes[i] == 0x20 || bytes[i] == 0x09 || bytes[i] == 0x0A || bytes[i] == 0x0D { i += 1 }
    }

    private mutating func expect(_ word: String) -> Bool {
        let utf8 = Array(word.utf8)
        guard i + utf8.count <= bytes.count, bytes[i ..< i + utf8.count].elementsEqual(utf8) else { return false }
        i += utf8.count
        return true
    }

    private mutating func value(depth: Int) throws(PlistError) -> PlistValue {
        produced += 1
        if produced > limits.maxObjects { throw fail("more than \(limits.maxObjects) values (limit)") }
        guard i < bytes.count else { throw fail("unexpected end of input, expected a value") }
        switch bytes[i] {
        case UInt8(ascii: "{"): return try object(depth: depth, literal: false)
        case UInt8(ascii: "["): return try array(depth: depth)
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t") where expect("true"): return .boolean(true)
        case UInt8(ascii: "f") where expect("false"): return .boolean(false)
        case UInt8(ascii: "n") where expect("null"): return .null
        case UInt8(ascii: "-"), 0x30 ... 0x39: return try number()
        default: throw fail("expected a value")
        }
    }

    private mutating func enter(_ depth: Int) throws(PlistError) {
        if depth >= limits.maxDepth { throw fail("nesting depth exceeds the limit of \(limits.maxDepth)") }
    }

    private mutating func array(depth: Int) throws(PlistError) -> PlistValue {
        try enter(depth)
        i += 1
        var elements: [PlistValue] = []
        skipBlanks()
        if i < bytes.count, bytes[i] == UInt8(ascii: "]") { i += 1; return .array([]) }
        while true {
            skipBlanks()
            elements.append(try value(depth: depth + 1))
            skipBlanks()
            guard i < bytes.count else { throw fail("unexpected end of input in an array") }
            if bytes[i] == UInt8(ascii: ",") { i += 1; continue }
            if bytes[i] == UInt8(ascii: "]") { i += 1; return .array(elements) }
            throw fail("expected ',' or ']' in an array")
        }
    }

    /// An object; `literal` (the inside of `{"$dict": …}`) keeps a lone `"$…"` key as a
    /// dictionary entry instead of reading the object as a typed value.
    private mutating func object(depth: Int, literal: Bool) throws(PlistError) -> PlistValue {
        try enter(depth)
        let start = i
        i += 1
        var entries: [String: PlistValue] = [:]
        var keyPositions: [String: Int] = [:]
        skipBlanks()
        if i < bytes.count, bytes[i] == UInt8(ascii: "}") {
            i += 1
            return .dictionary([:])
        }
        while true {
            skipBlanks()
            guard i < bytes.count, bytes[i] == UInt8(ascii: "\"") else { throw fail("expected a string key in an object") }
            let keyStart = i
            let key = try string()
            if let found = entries.index(forKey: key) {
                // Swift's `==` found it: the same bytes, or the same text in another normalisation.
                let reason = entries.keys[found].isExactly(key) ? "duplicate key" : "key differing only in Unicode normalisation from another:"
                throw fail("\(reason) \"\(key)\"", at: keyStart)
            }
            skipBlanks()
            guard i < bytes.count, bytes[i] == UInt8(ascii: ":") else { throw fail("expected ':' after a key") }
            i += 1
            skipBlanks()
            keyPositions[key] = i
            if key == "$dict", i < bytes.count, bytes[i] == UInt8(ascii: "{") {
                produced += 1
                entries[key] = try object(depth: depth + 1, literal: true)
            } else {
                entries[key] = try value(depth: depth + 1)
            }
            skipBlanks()
            guard i < bytes.count else { throw fail("unexpected end of input in an object") }
            if bytes[i] == UInt8(ascii: ",") { i += 1; continue }
            if bytes[i] == UInt8(ascii: "}") { i += 1; break }
            throw fail("expected ',' or '}' in an object")
        }
        if entries.count > 1, case let .dictionary(inner)? = entries["$dict"] {
            // "$dict" beside other keys is an ordinary key: read its object as usual after all.
            entries["$dict"] = try interpreted(inner, at: keyPositions["$dict"] ?? start)
        }
        return literal ? .dictionary(entries) : try interpreted(entries, at: start)
    }

    /// `entries` as a dictionary, or as the typed value a lone `"$…"` key stands for.
    private func interpreted(_ entries: [String: PlistValue], at start: Int) throws(PlistError) -> PlistValue {
        guard entries.count == 1, let (key, inner) = entries.first, key.hasPrefix("$") else {
            return .dictionary(entries)
        }
        return try typed(key, inner, at: start)
    }

    /// The value a one-entry `{"$tag": …}` object stands for.
    private func typed(_ tag: String, _ inner: PlistValue, at position: Int) throws(PlistError) -> PlistValue {
        switch (tag, inner) {
        case ("$date", .string("nan")): return .date(.nan)
        case ("$date", .string("inf")): return .date(.infinity)
        case ("$date", .string("-inf")): return .date(-.infinity)
        case let ("$date", .string(text)):
            var utf8 = Array(text.utf8)
            let seconds = utf8.withUnsafeMutableBufferPointer { ISO8601Date.parse(UnsafeBufferPointer($0)) }
            guard let seconds else { throw fail("malformed $date \"\(text.prefix(40))\" (expected YYYY-MM-DDTHH:MM:SS[.fff]Z)", at: position) }
            return .date(seconds)
        case let ("$date", .real(seconds)): return .date(seconds)
        case let ("$date", .integer(seconds)): return .date(Double(seconds))
        case let ("$data", .string(text)):
            guard let data = Array(text.utf8).withUnsafeBufferPointer({ Base64.decode($0) }) else {
                throw fail("malformed base64 in $data", at: position)
            }
            return .data(data)
        case let ("$uid", .integer(n)) where n >= 0: return .uid(UInt64(n))
        case let ("$uid", .unsignedInteger(n)): return .uid(n)
        case let ("$real", .string(text)):
            switch text {
            case "nan": return .real(.nan)
            case "inf": return .real(.infinity)
            case "-inf": return .real(-.infinity)
            default: throw fail("$real takes \"nan\", \"inf\" or \"-inf\"", at: position)
            }
        case let ("$real", .real(d)): return .real(d)
        case let ("$dict", .dictionary(entries)): return .dictionary(entries)
        case ("$date", _), ("$data", _), ("$uid", _), ("$real", _), ("$dict", _):
            throw fail("\(tag) holds a value of the wrong kind", at: position)
        default:
            throw fail("unknown typed value \"\(tag)\" (a dictionary whose only key starts with \"$\" is written {\"$dict\": {…}})", at: position)
        }
    }

    private mutating func number() throws(PlistError) -> PlistValue {
        let start = i
        if bytes[i] == UInt8(ascii: "-") { i += 1 }
        func digits() -> Int {
            let from = i
            while i < bytes.count, bytes[i] >= 0x30, bytes[i] <= 0x39 { i += 1 }
            return i - from
        }
        let intStart = i
        let intDigits = digits()
        guard intDigits > 0 else { throw fail("malformed number", at: start) }
        if intDigits > 1, bytes[intStart] == 0x30 { throw fail("malformed number (leading zero)", at: start) }
        var isReal = false
        if i < bytes.count, bytes[i] == UInt8(ascii: ".") {
            i += 1
            isReal = true
            guard digits() > 0 else { throw fail("malformed number (no digit after '.')", at: start) }
        }
        if i < bytes.count, bytes[i] | 0x20 == UInt8(ascii: "e") {
            i += 1
            isReal = true
            if i < bytes.count, bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") { i += 1 }
            guard digits() > 0 else { throw fail("malformed number (no digit in the exponent)", at: start) }
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start ..< i]), as: UTF8.self)
        if isReal {
            guard let d = Double(text) else { throw fail("malformed number", at: start) }
            return .real(d)
        }
        if let n = Int64(text) { return .integer(n) }
        if let u = UInt64(text) { return .unsignedInteger(u) }
        throw fail("integer \(text) is out of the 64-bit range", at: start)
    }

    private mutating func string() throws(PlistError) -> String {
        let start = i
        i += 1  // opening quote
        var out: [UInt8] = []
        while true {
            guard i < bytes.count else { throw fail("unterminated string", at: start) }
            let c = bytes[i]
            if c == UInt8(ascii: "\"") { i += 1; break }
            if c < 0x20 { throw fail("control character U+00\(c < 16 ? "0" : "")\(String(c, radix: 16, uppercase: true)) in a string (escape it)") }
            if c != UInt8(ascii: "\\") {
                out.append(c)
                i += 1
                continue
            }
            i += 1
            guard i < bytes.count else { throw fail("unterminated string", at: start) }
            let escape = bytes[i]
            i += 1
            switch escape {
            case UInt8(ascii: "\""): out.append(0x22)
            case UInt8(ascii: "\\"): out.append(0x5C)
            case UInt8(ascii: "/"): out.append(0x2F)
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = try hex4()
                if scalar & 0xFC00 == 0xD800 {
                    guard expect("\\u") else { throw fail("unpaired UTF-16 surrogate in a \\u escape") }
                    let low = try hex4()
                    guard low & 0xFC00 == 0xDC00 else { throw fail("unpaired UTF-16 surrogate in a \\u escape") }
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                } else if scalar & 0xFC00 == 0xDC00 {
                    throw fail("unpaired UTF-16 surrogate in a \\u escape")
                }
                out.append(contentsOf: String(Character(Unicode.Scalar(scalar)!)).utf8)
            default:
                throw fail("unknown escape '\\\(String(decoding: [escape], as: UTF8.self))' in a string", at: i - 2)
            }
        }
        guard let s = String(validating: out, as: UTF8.self) else { throw fail("string is not valid UTF-8", at: start) }
        return s
    }

    private mutating func hex4() throws(PlistError) -> UInt32 {
        guard i + 4 <= bytes.count else { throw fail("truncated \\u escape") }
        var value: UInt32 = 0
        for _ in 0 ..< 4 {
            let c = bytes[i]
            let digit: UInt32
            switch c {
            case 0x30 ... 0x39: digit = UInt32(c - 0x30)
            case 0x41 ... 0x46: digit = UInt32(c - 0x41 + 10)
            case 0x61 ... 0x66: digit = UInt32(c - 0x61 + 10)
            default: throw fail("malformed \\u escape")
            }
            value = value << 4 | digit
            i += 1
        }
        return value
    }
}
