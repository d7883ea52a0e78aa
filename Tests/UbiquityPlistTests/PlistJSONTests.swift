import Foundation
import Testing
@testable import UbiquityPlist

/// The JSON forms of `PlistJSON` (Docs/PlistCodec.md, "JSON").
@Suite struct PlistJSONTests {
    /// Everything, plus what only the JSON mapping has to take care of.
    static let everything: PlistValue = {
        var d = Samples.everything.dictionaryValue!
        d["uids"] = .array([.uid(0), .uid(1), .uid(.max)])
        d["null"] = .null
        d["oddDates"] = .array([.date(.nan), .date(.infinity), .date(-.infinity), .date(-0.0), .date(2e14), .date(-1e300)])
        d["dollars"] = .array([.dictionary(["$date": .string("not a date")]), .dictionary(["$dict": .integer(1)]),
                              .dictionary(["$x": .dictionary(["$y": .null])]), .dictionary(["$a": .integer(1), "$b": .integer(2)])])
        d["realsThatLookWhole"] = .array([.real(1), .real(-0.0), .real(1e16), .real(.leastNonzeroMagnitude)])
        d["control"] = .string("\u{0}\u{1}\u{1F}\t\n\r\"\\/")
        return .dictionary(d)
    }()

    @Test func typedJSONIsLossless() throws {
        let json = try PlistJSON.encode(Self.everything)
        #expect(try PlistJSON.decode(json) == Self.everything)
        // The same text again: deterministic.
        #expect(try PlistJSON.encode(PlistJSON.decode(json)) == json)
    }

    @Test func typedJSONText() throws {
        let value = PlistValue.dictionary([
            "int": .integer(12), "real": .real(12), "nan": .real(.nan), "date": .date(1_098_786_813.5),
            "data": .data([0, 1, 2, 255]), "uid": .uid(3), "null": .null, "flag": .boolean(false),
            "list": .array([.string("a\u{1}")]), "empty": .dictionary([:]), "$key": .dictionary(["$date": .integer(1)]),
        ])
        #expect(String(decoding: try PlistJSON.encode(value), as: UTF8.self) == """
            {
              "$key": {"$dict": {
                "$date": 1
              }},
              "data": {"$data": "AAEC/w=="},
              "date": {"$date": "2004-10-26T10:33:33.5Z"},
              "empty": {},
              "flag": false,
              "int": 12,
              "list": [
                "a\\u0001"
              ],
              "nan": {"$real": "nan"},
              "null": null,
              "real": 12.0,
              "uid": {"$uid": 3}
            }

            """)
    }

    @Test func plainJSONHasBareValuesAndRefusesNonFiniteNumbers() throws {
        let value = PlistValue.array([.date(0), .data([1, 2, 3]), .uid(7), .real(0.5), .dictionary(["$date": .integer(1)])])
        #expect(String(decoding: try PlistJSON.encode(value, style: .plain), as: UTF8.self) == """
            [
              "1970-01-01T00:00:00Z",
              "AQID",
              7,
              0.5,
              {
                "$date": 1
              }
            ]

            """)
        for bad in [PlistValue.array([.real(.infinity)]), .array([.date(.nan)])] {
            #expect(throws: PlistError.self) { try PlistJSON.encode(bad, style: .plain) }
        }
    }

    @Test func readsJSONItDidNotWrite() throws {
        let text = #" { "a" : [ 1 , -2.5e3, 1E2, 0, -0, "\u00e9\ud83d\ude00\/" ] , "b":{"$data":"AQI="}, "c": 18446744073709551615 } "#
        #expect(try PlistJSON.decode(Array(text.utf8)) == .dictionary([
            "a": .array([.integer(1), .real(-2500), .real(100), .integer(0), .integer(0), .string("é😀/")]),
            "b": .data([1, 2]), "c": .unsignedInteger(.max),
        ]))
    }

    @Test func malformedJSONIsAnErrorWithLineAndColumn() {
        let cases: [(String, String, Int, Int)] = [
            ("{\n  \"a\": 01\n}", "JSON: malformed number (leading zero)", 2, 8),
            ("[1,\n 2,]", "JSON: expected a value", 2, 4),
            ("{\"a\": 1, \"a\": 2}", "JSON: duplicate key \"a\"", 1, 10),
            ("[\"\u{1}\"]", "JSON: control character U+0001 in a string (escape it)", 1, 3),
            ("[\"\\ud800\"]", "JSON: unpaired UTF-16 surrogate in a \\u escape", 1, 9),
            ("{\"$date\": \"yesterday\"}", "JSON: malformed $date \"yesterday\" (expected YYYY-MM-DDTHH:MM:SS[.fff]Z)", 1, 1),
            ("{\"$when\": 1}", "JSON: unknown typed value \"$when\" (a dictionary whose only key starts with \"$\" is written {\"$dict\": {…}})", 1, 1),
            ("{\"$uid\": -1}", "JSON: $uid holds a value of the wrong kind", 1, 1),
            ("[1] 2", "JSON: unexpected text after the top-level value", 1, 5),
            ("18446744073709551616", "JSON: integer 18446744073709551616 is out of the 64-bit range", 1, 1),
            (String(repeating: "[", count: 600), "JSON: nesting depth exceeds the limit of 256", 1, 257),
        ]
        for (text, message, line, column) in cases {
            #expect {
                try PlistJSON.decode(Array(text.utf8))
            } throws: { error in
                guard let error = error as? PlistError else { return false }
                return error.message == message && error.location == .lineColumn(line: line, column: column)
            }
        }
    }

    @Test func documentDetectsEachFormat() throws {
        let value = PlistValue.dictionary(["k": .array([.integer(1), .date(0)])])
        for format in PlistDocument.Format.allCases {
            let bytes = try PlistDocument(value: value, format: format).encoded(as: format)
            let document = try PlistDocument(decoding: bytes)
            #expect(document.format == format)
            #expect(document.value == value)
        }
        #expect(throws: PlistError.self) { try PlistDocument(decoding: Array("hello".utf8)) }
        #expect(throws: PlistError.self) { try PlistDocument(decoding: []) }
    }

    @Test func printerRendering() {
        let value = PlistValue.dictionary([
            "s": .string("a \"q\"\n\u{1}"), "i": .integer(-3), "r": .real(2), "b": .boolean(true), "d": .date(0.25),
            "x": .data(Array(0 ..< 70)), "u": .uid(4), "n": .null, "a": .array([.array([]), .dictionary([:])]),
            "weird": .date(.nan),
        ])
        #expect(PlistPrinter.render(value) == """
            {
              "a" => [
                0 => []
                1 => {}
              ]
              "b" => true
              "d" => 1970-01-01T00:00:00.25Z
              "i" => -3
              "n" => null
              "r" => 2.0
              "s" => "a \\"q\\"\\n\\u{1}"
              "u" => UID(4)
              "weird" => <date nan s since 1970>
              "x" => <70 bytes 0x00010203 04050607 08090a0b 0c0d0e0f 10111213 14151617 18191a1b 1c1d1e1f 20212223 24252627 28292a2b 2c2d2e2f 30313233 34353637 38393a3b 3c3d3e3f …>
            }

            """)
    }
}
