import Foundation
import Testing
@testable import UbiquityPlist

/// Values XML cannot hold are refused by the XML writer, never written as something else
/// (a string with U+0001 used to be written as U+FFFD and synced changed).
@Suite struct UnwritableXMLTests {
    /// Every character XML 1.0 forbids, even as a character reference.
    static let forbidden: [Unicode.Scalar] = (0 ..< 0x20).compactMap { v in
        [0x09, 0x0A, 0x0D].contains(v) ? nil : Unicode.Scalar(v)
    } + [Unicode.Scalar(0xFFFE)!, Unicode.Scalar(0xFFFF)!]

    static func hex(_ scalar: Unicode.Scalar) -> String {
        let digits = String(scalar.value, radix: 16, uppercase: true)
        return "U+" + String(repeating: "0", count: 4 - digits.count) + digits
    }

    @Test(arguments: forbidden)
    func stringWithForbiddenCharacterIsRefusedAndKeptByBinary(_ scalar: Unicode.Scalar) throws {
        let text = "before" + String(Character(scalar)) + "after"
        let value = PlistValue.dictionary(["notes": .array([.string("fine"), .dictionary(["title": .string(text)])])])
        #expect {
            try PropertyListCodec.encode(value, format: .xml)
        } throws: { error in
            (error as? PlistError)?.message == "XML plist: the string at /notes/1/title holds \(Self.hex(scalar)), "
                + "which XML 1.0 cannot contain; write a binary plist instead"
        }
        #expect(try PropertyListCodec.decode(PropertyListCodec.encodeBinary(value)) == value)
    }

    @Test func forbiddenCharacterInAKeyIsRefused() {
        #expect {
            try PropertyListCodec.encode(.dictionary(["a": .dictionary(["x\u{1B}y": .integer(1)])]), format: .xml)
        } throws: { error in
            (error as? PlistError)?.message == "XML plist: the key \"x\\u{1B}y\" in /a holds U+001B, which XML 1.0 cannot contain; write a binary plist instead"
        }
    }

    @Test func nullAndDatesWithoutTextAreRefused() {
        let cases: [(PlistValue, String)] = [
            (.array([.null]), "the null at /0 has no XML form"),
            (.dictionary(["d": .date(.nan)]), "the date at /d (nan s since 1970) has no XML date text"),
            (.date(.infinity), "the date at / (inf s since 1970) has no XML date text"),
            (.date(2e14), "the date at / (200000000000000.0 s since 1970) has no XML date text"),
        ]
        for (value, what) in cases {
            #expect {
                try PropertyListCodec.encode(value, format: .xml)
            } throws: { error in
                (error as? PlistError)?.message == "XML plist: \(what); write a binary plist instead"
            }
        }
    }

    @Test func tabLineFeedAndCarriageReturnRoundTripThroughXML() throws {
        let value = PlistValue.string("a\tb\nc\rd\r\ne")
        #expect(try PropertyListCodec.decode(PropertyListCodec.encode(value, format: .xml)) == value)
    }

    @Test func uidIsWrittenAsCoreFoundationDoesAndReadBack() throws {
        // (CoreFoundation reads binary UIDs of up to 4 bytes; plistlib and this codec 8.)
        let value = PlistValue.dictionary(["$top": .dictionary(["root": .uid(1)]), "big": .uid(UInt64(UInt32.max))])
        let xml = try PropertyListCodec.encode(value, format: .xml)
        #expect(String(decoding: xml, as: UTF8.self).contains("<dict>\n\t\t\t<key>CF$UID</key>\n\t\t\t<integer>1</integer>\n\t\t</dict>"))
        #expect(try PropertyListCodec.decode(xml) == value)
        // Foundation reads both forms as its UID type.
        for bytes in [xml, PropertyListCodec.encodeBinary(value)] {
            let object = try PropertyListSerialization.propertyList(from: Data(bytes), format: nil) as? [String: Any]
            let top = object?["$top"] as? [String: Any]
            #expect(top.map { String(describing: type(of: $0["root"]!)) } == "_NSKeyedArchiverUID")
        }
    }

    @Test func uidAndNullRoundTripThroughBinary() throws {
        let value = PlistValue.array([.null, .uid(0), .uid(255), .uid(256), .uid(65_536), .uid(.max), .null])
        #expect(try PropertyListCodec.decode(PropertyListCodec.encodeBinary(value)) == value)
        // As plistlib and CoreFoundation write them: the smallest of 1, 2, 4, 8 bytes.
        #expect(Array(PropertyListCodec.encodeBinary(.uid(256))[8 ..< 11]) == [0x81, 0x01, 0x00])
        #expect(Array(PropertyListCodec.encodeBinary(.uid(65_536))[8 ..< 13]) == [0x83, 0x00, 0x01, 0x00, 0x00])
        #expect(Array(PropertyListCodec.encodeBinary(.null)[8 ..< 9]) == [0x00])
    }
}
