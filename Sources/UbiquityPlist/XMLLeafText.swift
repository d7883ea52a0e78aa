/// What the text of an XML plist's leaf element means. Shared by both XML readers, the fast
/// scanner and libxml2's, so that they cannot disagree on a value.
enum XMLLeafText {
    enum Kind { case key, string, integer, real, date, data, boolean(Bool) }

    /// Why a leaf's text is not a value of its kind; `element` locates the error's column.
    struct Problem: Error {
        let message: String
        let element: String?
    }

    static func value(of kind: Kind, _ raw: UnsafeBufferPointer<UInt8>) -> Result<PlistValue, Problem> {
        switch kind {
        case .string, .key:
            return .success(.string(raw.isEmpty ? "" : String(decoding: raw, as: UTF8.self)))
        case let .boolean(b):
            guard raw.allSatisfy(isBlank) else { return .failure(Problem(message: "<\(b)/> must be empty", element: nil)) }
            return .success(.boolean(b))
        case .integer:
            return integer(trimmed(raw))
        case .real:
            let t = trimmed(raw)
            guard let d = real(t) else {
                return .failure(Problem(message: "malformed <real> \"\(quoted(t))\" (expected a decimal number, nan, inf or infinity)", element: "real"))
            }
            return .success(.real(d))
        case .date:
            let t = trimmed(raw)
            guard let seconds = ISO8601Date.parse(t) else {
                return .failure(Problem(message: "malformed <date> \"\(quoted(t))\" (expected YYYY-MM-DDTHH:MM:SS[.fff]Z)", element: "date"))
            }
            return .success(.date(seconds))
        case .data:
            guard let bytes = Base64.decode(raw) else { return .failure(Problem(message: "malformed base64 in <data>", element: "data")) }
            return .success(.data(bytes))
        }
    }

    /// The text of a `<real>`, in the grammar CoreFoundation and plistlib both accept: an
    /// optional sign, digits with an optional point (`5.`, `.5`), an optional exponent; or,
    /// in any case, `nan`, `inf`, `infinity` (the latter two with an optional sign). Swift's
    /// `Double(String)` alone would also take hexadecimal (`0x10`) and `nan(…)`, which both
    /// reject. Surrounding whitespace was trimmed (plistlib accepts it, Foundation not).
    static func real(_ t: UnsafeBufferPointer<UInt8>) -> Double? {
        var i = 0
        let n = t.count
        var negative = false
        if i < n, t[i] == UInt8(ascii: "+") || t[i] == UInt8(ascii: "-") {
            negative = t[i] == UInt8(ascii: "-")
            i += 1
        }
        if i < n, t[i] | 0x20 >= UInt8(ascii: "a"), t[i] | 0x20 <= UInt8(ascii: "z") {
            if lowercaseEquals(t, from: i, "inf") || lowercaseEquals(t, from: i, "infinity") { return negative ? -.infinity : .infinity }
            if lowercaseEquals(t, from: i, "nan") { return i == 0 ? .nan : nil }  // a signed nan: both readers differ; refused
            return nil
        }
        func digits() -> Int {
            let start = i
            while i < n, t[i] >= 0x30, t[i] <= 0x39 { i += 1 }
            return i - start
        }
        var mantissa = digits()
        if i < n, t[i] == UInt8(ascii: ".") {
            i += 1
            mantissa += digits()
        }
        guard mantissa > 0 else { return nil }
        if i < n, t[i] | 0x20 == UInt8(ascii: "e") {
            i += 1
            if i < n, t[i] == UInt8(ascii: "+") || t[i] == UInt8(ascii: "-") { i += 1 }
            guard digits() > 0 else { return nil }
        }
        guard i == n else { return nil }
        // The grammar is checked; Swift's parser is locale-independent (strtod is not) and a
        // number's text fits a small string, so this makes no allocation.
        return Double(String(decoding: t, as: UTF8.self))
    }

    private static func lowercaseEquals(_ t: UnsafeBufferPointer<UInt8>, from start: Int, _ word: StaticString) -> Bool {
        guard t.count - start == word.utf8CodeUnitCount else { return false }
        let bytes = UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount)
        for k in 0 ..< bytes.count where t[start + k] | 0x20 != bytes[k] { return false }
        return true
    }

    /// Decimal with an optional sign, or hexadecimal after `0x` (with an optional sign, as
    /// Foundation reads it); the whole signed and unsigned 64-bit range.
    static func integer(_ t: UnsafeBufferPointer<UInt8>) -> Result<PlistValue, Problem> {
        var i = 0
        var negative = false
        if i < t.count, t[i] == UInt8(ascii: "-") || t[i] == UInt8(ascii: "+") {
            negative = t[i] == UInt8(ascii: "-")
            i += 1
        }
        var radix: UInt64 = 10
        if i + 1 < t.count, t[i] == UInt8(ascii: "0"), t[i + 1] | 0x20 == UInt8(ascii: "x") {
            radix = 16
            i += 2
        }
        guard i < t.count else { return .failure(Problem(message: "empty or malformed <integer>", element: "integer")) }
        var magnitude: UInt64 = 0
        let outOfRange = Problem(message: "integer out of range", element: "integer")
        while i < t.count {
            let c = t[i]
            let digit: UInt64
            switch c {
            case 0x30 ... 0x39: digit = UInt64(c - 0x30)
            case 0x61 ... 0x66 where radix == 16: digit = UInt64(c - 0x61 + 10)
            case 0x41 ... 0x46 where radix == 16: digit = UInt64(c - 0x41 + 10)
            default: return .failure(Problem(message: "malformed <integer> \"\(quoted(t))\"", element: "integer"))
            }
            let (shifted, o1) = magnitude.multipliedReportingOverflow(by: radix)
            let (sum, o2) = shifted.addingReportingOverflow(digit)
            if o1 || o2 { return .failure(outOfRange) }
            magnitude = sum
            i += 1
        }
        if negative {
            if magnitude > UInt64(Int64.max) + 1 { return .failure(outOfRange) }
            return .success(.integer(magnitude == UInt64(Int64.max) + 1 ? Int64.min : -Int64(magnitude)))
        }
        return .success(magnitude <= UInt64(Int64.max) ? .integer(Int64(magnitude)) : .unsignedInteger(magnitude))
    }

    static func isBlank(_ c: UInt8) -> Bool { c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D }

    static func trimmed(_ raw: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8> {
        var lower = 0, upper = raw.count
        while lower < upper, isBlank(raw[lower]) { lower += 1 }
        while upper > lower, isBlank(raw[upper - 1]) { upper -= 1 }
        return UnsafeBufferPointer(rebasing: raw[lower ..< upper])
    }

    private static func quoted(_ t: UnsafeBufferPointer<UInt8>) -> String { String(decoding: t.prefix(40), as: UTF8.self) }
}

extension XMLLeafText.Kind {
    var elementName: String {
        switch self {
        case .key: return "key"
        case .string: return "string"
        case .integer: return "integer"
        case .real: return "real"
        case .date: return "date"
        case .data: return "data"
        case let .boolean(b): return b ? "true" : "false"
        }
    }
}
