import Foundation
import Testing
@testable import UbiquityPlist

/// The text `<real>` and `<integer>` accept, checked against the two references on this
/// machine: Foundation's `PropertyListSerialization` (CoreFoundation's parser) and Python's
/// plistlib. Where both accept a text with the same value or both refuse it, we must do the
/// same; where they disagree, we do what Docs/PlistCodec.md's table says (`whenTheyDiffer`).
@Suite struct XMLNumberTextTests {
    enum Reading: Equatable, CustomStringConvertible {
        case value(PlistValue)
        case refused

        var description: String {
            switch self {
            case let .value(v): return "\(v)"
            case .refused: return "refused"
            }
        }
    }

    struct Case: Sendable, CustomTestStringConvertible {
        let element: String
        let text: String
        var testDescription: String { "<\(element)>\(text)</\(element)>" }
    }

    static let reals = ["0x10", "0X1p4", "nan(123)", "nan()", "nan", "NaN", "-nan", "+nan", "+1.5", "-1.5", " 1.5 ",
                        "inf", "-inf", "+inf", "infinity", "Infinity", "+infinity", "-INFINITY", "infinit", "1_0",
                        "1e5", "1E-5", ".5", "5.", ".", "1.5e", "e5", "", "1,5", "1e400", "-0", "-0.0", "1.5x", "１"]
    static let integers = ["0x10", "0X1f", "-0x10", "+0x10", "0x", "+5", "-5", " 5 ", "0123", "00", "1_000", "", "-",
                           "+", "18446744073709551615", "18446744073709551616", "-9223372036854775808",
                           "-9223372036854775809", "1.0", "1e3", "0x1_0", "-0", "+-5", "5 5", "0x-5", "٣"]
    static let cases = reals.map { Case(element: "real", text: $0) } + integers.map { Case(element: "integer", text: $0) }

    /// What we do where Foundation and plistlib disagree, as documented.
    static let whenTheyDiffer: [String: Reading] = [
        "<real> 1.5 </real>": .value(.real(1.5)),  // whitespace around: plistlib yes, Foundation no
        "<real>-nan</real>": .refused, "<real>+nan</real>": .refused,  // plistlib only
        "<real>1_0</real>": .refused, "<real>１</real>": .refused,  // Python's own number syntax
        "<integer> 5 </integer>": .value(.integer(5)),
        "<integer>-0x10</integer>": .value(.integer(-16)),  // Foundation only
        "<integer>+0x10</integer>": .value(.integer(16)),
        "<integer>1_000</integer>": .refused, "<integer>0x1_0</integer>": .refused, "<integer>٣</integer>": .refused,
        // Beyond 64 bits: plistlib reads a Python int no plist can hold; Foundation refuses.
        "<integer>18446744073709551616</integer>": .refused, "<integer>-9223372036854775809</integer>": .refused,
    ]

    static func document(_ c: Case) -> [UInt8] {
        Array("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<plist version=\"1.0\">\n<\(c.element)>\(c.text)</\(c.element)>\n</plist>\n".utf8)
    }

    static func ours(_ c: Case) -> Reading {
        (try? PropertyListCodec.decode(document(c))).map(Reading.value) ?? .refused
    }

    static func foundation(_ c: Case) -> Reading {
        guard let object = try? PropertyListSerialization.propertyList(from: Data(document(c)), format: nil),
              let number = object as? NSNumber else { return .refused }
        if c.element == "real" { return .value(.real(number.doubleValue)) }
        if let i = Int64(number.stringValue) { return .value(.integer(i)) }
        if let u = UInt64(number.stringValue) { return .value(.unsignedInteger(u)) }
        return .value(.string(number.stringValue))
    }

    /// plistlib's reading of every case, in one python3 run: "refused", "int N" or "real HEX".
    static let plistlib: [String: Reading] = {
        let script = #"""
        import plistlib, sys, json
        for element, text in json.loads(sys.argv[1]):
            doc = f'<?xml version="1.0" encoding="UTF-8"?>\n<plist version="1.0">\n<{element}>{text}</{element}>\n</plist>\n'
            try:
                v = plistlib.loads(doc.encode())
                print("real " + v.hex() if isinstance(v, float) else f"int {v}")
            except Exception:
                print("refused")
        """#
        let input = String(decoding: try! JSONSerialization.data(withJSONObject: cases.map { [$0.element, $0.text] }), as: UTF8.self)
        guard let run = runPython(script, [input]), run.status == 0 else { return [:] }
        var readings: [String: Reading] = [:]
        for (c, line) in zip(cases, run.out.split(separator: "\n", omittingEmptySubsequences: false)) {
            let parts = line.split(separator: " ", maxSplits: 1).map(String.init)
            switch parts.first {
            case "int":
                if let i = Int64(parts[1]) { readings[c.testDescription] = .value(.integer(i)) }
                else if let u = UInt64(parts[1]) { readings[c.testDescription] = .value(.unsignedInteger(u)) }
                else { readings[c.testDescription] = .value(.string(parts[1])) }  // beyond 64 bits
            case "real": readings[c.testDescription] = .value(.real(pythonHexFloat(parts[1])))
            default: readings[c.testDescription] = .refused
            }
        }
        return readings
    }()

    /// Python's float.hex() form, e.g. "0x1.8000000000000p+0", "inf", "-0x0.0p+0", "nan".
    static func pythonHexFloat(_ text: String) -> Double {
        Double(text) ?? .nan  // Swift parses the same hexadecimal form
    }

    @Test(arguments: cases)
    func agreesWhereFoundationAndPlistlibAgree(_ c: Case) throws {
        let theirs = try #require(Self.plistlib[c.testDescription], "python3 with plistlib must run")
        let foundation = Self.foundation(c)
        let ours = Self.ours(c)
        if foundation == theirs {
            #expect(ours == foundation, "Foundation and plistlib both: \(foundation)")
        } else {
            let documented = try #require(Self.whenTheyDiffer[c.testDescription],
                                          "Foundation \(foundation), plistlib \(theirs): undocumented disagreement")
            #expect(ours == documented)
        }
    }

    @Test func hexadecimalAndNaNPayloadRealsAreErrorsWithLineAndColumn() {
        for text in ["0x10", "nan(1)"] {
            let xml = "<?xml version=\"1.0\"?>\n<plist version=\"1.0\">\n<array>\n\t<real>1</real>\n\t<real>\(text)</real>\n</array>\n</plist>\n"
            #expect {
                try PropertyListCodec.decode(Array(xml.utf8))
            } throws: { error in
                guard let error = error as? PlistError else { return false }
                return error.location == .lineColumn(line: 5, column: 2)
                    && error.message == "XML plist: malformed <real> \"\(text)\" (expected a decimal number, nan, inf or infinity)"
            }
        }
    }
}
