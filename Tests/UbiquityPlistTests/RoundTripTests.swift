import Foundation
import Testing
@testable import UbiquityPlist

@Suite struct RoundTripTests {
    @Test(arguments: PlistFormat.allCases)
    func everyKindRoundTrips(format: PlistFormat) throws {
        let bytes = try PropertyListCodec.encode(Samples.everything, format: format)
        #expect(PropertyListCodec.detectFormat(bytes) == format)
        let decoded = try PropertyListCodec.decode(bytes)
        #expect(decoded == Samples.everything)
        // Field by field, so a failure names the culprit.
        for (key, value) in Samples.everything.dictionaryValue! {
            #expect(decoded[key] == value, "\(format) \(key)")
        }
    }

    @Test(arguments: PlistFormat.allCases)
    func topLevelScalarsRoundTrip(format: PlistFormat) throws {
        let scalars: [PlistValue] = [
            .string(""), .string("x"), .integer(0), .integer(Int64.min), .unsignedInteger(.max), .real(-0.0),
            .real(.nan), .boolean(true), .date(1.5), .data([]), .data([1, 2, 3]), .array([]), .dictionary([:]),
        ]
        for value in scalars {
            #expect(try PropertyListCodec.decode(PropertyListCodec.encode(value, format: format)) == value, "\(value)")
        }
    }

    @Test(arguments: PlistFormat.allCases)
    func largeDataRoundTrips(format: PlistFormat) throws {
        var rng = SeededGenerator(seed: 7)
        let blob = (0 ..< 1 << 20).map { _ in UInt8.random(in: 0 ... 255, using: &rng) }
        let value = PlistValue.array([.data(blob), .string("after")])
        let decoded = try PropertyListCodec.decode(Data(PropertyListCodec.encode(value, format: format)))
        #expect(decoded == value)
    }

    @Test(arguments: PlistFormat.allCases)
    func deepNestingWithinLimitsRoundTrips(format: PlistFormat) throws {
        let value = Samples.nested(depth: 200)
        #expect(try PropertyListCodec.decode(PropertyListCodec.encode(value, format: format)) == value)
    }

    @Test(arguments: PlistFormat.allCases)
    func recordsRoundTrip(format: PlistFormat) throws {
        let value = Samples.records(300)
        #expect(try PropertyListCodec.decode(PropertyListCodec.encode(value, format: format)) == value)
    }

    @Test(arguments: PlistFormat.allCases)
    func encodingIsDeterministic(format: PlistFormat) throws {
        // Dictionaries with the same contents but different insertion histories.
        var a = [String: PlistValue](), b = [String: PlistValue]()
        for i in 0 ..< 200 { a["k\(i)"] = .integer(Int64(i)) }
        for i in (0 ..< 200).reversed() { b["k\(i)"] = .integer(Int64(i)) }
        #expect(try PropertyListCodec.encode(.dictionary(a), format: format) == PropertyListCodec.encode(.dictionary(b), format: format))
    }

    @Test func randomDatesRoundTripExactlyThroughXML() throws {
        for seed in SeededGenerator.testSeeds([20_240_601]) {
            var rng = SeededGenerator(seed: seed)
            for _ in 0 ..< 5000 {
                let t = Double.random(in: -5e10 ... 5e10, using: &rng)
                let decoded = try PropertyListCodec.decode(PropertyListCodec.encode(.date(t), format: .xml))
                #expect(decoded == .date(t), "seed \(seed) t \(t)")
            }
        }
    }

    @Test func randomRealsRoundTripExactlyThroughXML() throws {
        for seed in SeededGenerator.testSeeds([99]) {
            var rng = SeededGenerator(seed: seed)
            for _ in 0 ..< 5000 {
                let d = Double(bitPattern: rng.next())
                let decoded = try PropertyListCodec.decode(PropertyListCodec.encode(.real(d), format: .xml))
                #expect(decoded == .real(d), "seed \(seed) bits \(d.bitPattern)")
            }
        }
    }

    @Test func realisticDatesRoundTripExactlyThroughBinary() throws {
        for seed in SeededGenerator.testSeeds([5]) {
            var rng = SeededGenerator(seed: seed)
            for _ in 0 ..< 5000 {
                // 1985…2032: every Double there has an exact 2001-based counterpart.
                let t = Double.random(in: 5e8 ... 1.9e9, using: &rng)
                #expect(try PropertyListCodec.decode(PropertyListCodec.encode(.date(t), format: .binary)) == .date(t), "seed \(seed)")
            }
        }
    }
}

@Suite struct XMLWriterTests {
    private func xml(_ value: PlistValue) -> String {
        String(decoding: (try? PropertyListCodec.encode(value, format: .xml)) ?? [], as: UTF8.self)
    }

    @Test func appleLayout() {
        let text = xml(.dictionary(["b": .integer(2), "a": .array([.boolean(true)]), "c": .string("")]))
        #expect(text == """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0">
            <dict>
            \t<key>a</key>
            \t<array>
            \t\t<true/>
            \t</array>
            \t<key>b</key>
            \t<integer>2</integer>
            \t<key>c</key>
            \t<string></string>
            </dict>
            </plist>

            """)
    }

    @Test func escaping() throws {
        let text = xml(.string("a&b<c>d\re\tf\ng"))
        #expect(text.contains("<string>a&amp;b&lt;c&gt;d&#13;e\tf\ng</string>"))
        #expect(try PropertyListCodec.decode(Array(text.utf8)) == .string("a&b<c>d\re\tf\ng"))
    }

    @Test func dateAndRealText() {
        #expect(xml(.date(0)).contains("<date>1970-01-01T00:00:00Z</date>"))
        #expect(xml(.date(1_700_000_000.5)).contains("<date>2023-11-14T22:13:20.5Z</date>"))
        #expect(xml(.date(-0.25)).contains("<date>1969-12-31T23:59:59.75Z</date>"))
        #expect(xml(.date(978_307_200)).contains("<date>2001-01-01T00:00:00Z</date>"))
        #expect(xml(.date(-62_135_596_800)).contains("<date>0001-01-01T00:00:00Z</date>"))
        #expect(xml(.real(.nan)).contains("<real>nan</real>"))
        #expect(xml(.real(-.infinity)).contains("<real>-infinity</real>"))
        #expect(xml(.real(0.1)).contains("<real>0.1</real>"))
        #expect(xml(.unsignedInteger(.max)).contains("<integer>18446744073709551615</integer>"))
        #expect(xml(.integer(.min)).contains("<integer>-9223372036854775808</integer>"))
    }

    @Test func readerAcceptsVariants() throws {
        let text = """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <!-- a comment -->
            <plist version="1.0"><dict>
              <key>hex</key><integer> 0x1F </integer>
              <key>plus</key><integer>+5</integer>
              <key>s</key><string/>
              <key>e</key><string>&lt;&#x41;&#66;&amp;<!-- split -->x<![CDATA[<y>]]></string>
              <key>d</key><data>
                AAEC
                Aw==
              </data>
              <key>inf</key><real>inf</real>
              <key>r</key><real>1E3</real>
              <key>f</key><date>2001-01-01T00:00:00.125Z</date>
            </dict></plist>
            """
        let value = try PropertyListCodec.decode(Array(text.utf8))
        #expect(value == .dictionary([
            "hex": .integer(31), "plus": .integer(5), "s": .string(""), "e": .string("<AB&x<y>"),
            "d": .data([0, 1, 2, 3]), "inf": .real(.infinity), "r": .real(1000), "f": .date(978_307_200.125),
        ]))
    }
}

extension XMLWriterTests {
    /// Blank-only text and blanks before comments, CDATA and processing instructions are
    /// content inside <string> and <key>; the reader must keep them whichever parser
    /// options it picks for the document.
    @Test func blanksInsideStringsAreKept() throws {
        let plain = "<plist><dict><key> </key><string>   </string><key>b</key><string>\t\n</string></dict></plist>"
        #expect(try PropertyListCodec.decode(Array(plain.utf8)) == .dictionary([" ": .string("   "), "b": .string("\t\n")]))
        let markup = "<plist><array><string>  <!-- c -->x</string><string>  <![CDATA[y]]></string><string> <?pi z?>w</string></array></plist>"
        #expect(try PropertyListCodec.decode(Array(markup.utf8)) == .array([.string("  x"), .string("  y"), .string(" w")]))
        let value = PlistValue.array([.string(" "), .string("\n\t \n"), .dictionary(["  ": .string("")])])
        #expect(try PropertyListCodec.decode(PropertyListCodec.encode(value, format: .xml)) == value)
    }
}

@Suite struct BinaryWriterTests {
    @Test func scalarsAreWrittenOnce() throws {
        let record = PlistValue.dictionary(["entity": .string("Note"), "n": .integer(7), "t": .date(5), "r": .real(0.5)])
        let one = try PropertyListCodec.encode(.array([record]), format: .binary)
        let many = try PropertyListCodec.encode(.array(Array(repeating: record, count: 100)), format: .binary)
        // 99 more dictionaries cost a marker and 8 one-byte refs each, plus an array ref and
        // an offset table entry; with 2-byte offsets and refs at most 22 bytes apiece.
        #expect(many.count - one.count <= 99 * 22)
        #expect(try PropertyListCodec.decode(many) == .array(Array(repeating: record, count: 100)))
    }

    @Test func integerEncodingsMatchCoreFoundation() {
        // Trailer and offsets aside, the object bytes after the header.
        func object(_ value: PlistValue) -> [UInt8] {
            let bytes = PropertyListCodec.encodeBinary(value)
            return Array(bytes[8 ..< bytes.count - 32 - 1])
        }
        #expect(object(.integer(1)) == [0x10, 0x01])
        #expect(object(.integer(256)) == [0x11, 0x01, 0x00])
        #expect(object(.integer(-1)) == [0x13] + Array(repeating: 0xFF, count: 8))
        #expect(object(.unsignedInteger(.max)) == [0x14] + Array(repeating: 0, count: 8) + Array(repeating: 0xFF, count: 8))
        #expect(object(.unsignedInteger(5)) == [0x10, 0x05])
        #expect(object(.string("é")) == [0x61, 0x00, 0xE9])
        #expect(object(.date(978_307_200)) == [0x33, 0, 0, 0, 0, 0, 0, 0, 0])
    }
}
