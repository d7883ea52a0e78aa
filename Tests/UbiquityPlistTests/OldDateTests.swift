import Foundation
import Testing
@testable import UbiquityPlist

/// XML dates before the Gregorian reform (1582-10-15), checked against Foundation on this
/// machine. Foundation has two readers that disagree there: `PropertyListSerialization`
/// (CoreFoundation, what iOS 7 used) reads and writes the proleptic Gregorian calendar, as
/// ISO 8601 and plistlib do; `PropertyListDecoder`/`Encoder` (swift-foundation) use the
/// Julian calendar before the reform. The codec follows CoreFoundation and plistlib; the
/// second test pins the Decoder's difference so that a change in Foundation shows up here.
@Suite struct OldDateTests {
    /// (XML text, seconds since 1970 in the proleptic Gregorian calendar).
    static let dates: [(String, Double)] = [
        ("0001-01-01T00:00:00Z", -62_135_596_800), ("0004-02-29T00:00:00Z", -62_035_891_200),
        ("0100-03-01T00:00:00Z", -59_006_361_600), ("1000-03-01T00:00:00Z", -30_605_126_400),
        ("1500-01-01T00:00:00Z", -14_831_769_600), ("1582-10-04T00:00:00Z", -12_220_243_200),
        ("1582-10-14T23:59:59Z", -12_219_292_801), ("1582-10-15T00:00:00Z", -12_219_292_800),
        ("1600-02-29T00:00:00Z", -11_670_998_400), ("1900-01-01T00:00:00Z", -2_208_988_800),
    ]

    @Test func readAndWrittenAsPropertyListSerializationDoes() throws {
        for (text, seconds) in Self.dates {
            // Our text is Foundation's text…
            let ours = try PropertyListCodec.encode(.dictionary(["d": .date(seconds)]), format: .xml)
            let theirs = try PropertyListSerialization.data(fromPropertyList: ["d": Date(timeIntervalSince1970: seconds)], format: .xml, options: 0)
            #expect(String(decoding: ours, as: UTF8.self).contains("<date>\(text)</date>"))
            #expect(String(decoding: theirs, as: UTF8.self).contains("<date>\(text)</date>"))
            // …and each reads the other's file as the same instant.
            #expect(try PropertyListCodec.decode([UInt8](theirs)) == .dictionary(["d": .date(seconds)]), "\(text)")
            let read = try PropertyListSerialization.propertyList(from: Data(ours), format: nil) as? [String: Any]
            #expect((read?["d"] as? Date)?.timeIntervalSince1970 == seconds, "\(text)")
        }
    }

    @Test func plistlibAgrees() throws {
        let script = #"""
        import plistlib, sys, datetime
        for text in sys.argv[1:]:
            doc = f'<plist version="1.0"><date>{text}</date></plist>'.encode()
            d = plistlib.loads(doc)
            print(int((d - datetime.datetime(1970, 1, 1)).total_seconds()))
        """#
        let run = try #require(runPython(script, Self.dates.map(\.0)), "python3 must run")
        #expect(run.status == 0, "\(run.err)")
        #expect(run.out.split(separator: "\n").map { Double($0) } == Self.dates.map { Optional($0.1) })
    }

    struct Wrapped: Codable { let d: Date }

    @Test func propertyListDecoderReadsTheJulianCalendarBeforeTheReform() throws {
        // Days PropertyListDecoder is ahead of the proleptic Gregorian reading: the Julian
        // calendar runs 2 days behind in year 1, 10 days in 1582 until the reform.
        let julianLead: [String: Double] = [
            "0001-01-01T00:00:00Z": -2, "0004-02-29T00:00:00Z": -2, "0100-03-01T00:00:00Z": -1,
            "1000-03-01T00:00:00Z": 6, "1500-01-01T00:00:00Z": 9, "1582-10-04T00:00:00Z": 10,
            "1582-10-14T23:59:59Z": 10,
        ]
        for (text, seconds) in Self.dates {
            let xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?><plist version=\"1.0\"><dict><key>d</key><date>\(text)</date></dict></plist>"
            let decoded = try PropertyListDecoder().decode(Wrapped.self, from: Data(xml.utf8)).d.timeIntervalSince1970
            #expect(decoded - seconds == 86_400 * (julianLead[text] ?? 0), "\(text)")
        }
    }
}
