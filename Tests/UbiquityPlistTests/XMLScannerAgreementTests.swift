import Foundation
import Testing
@testable import UbiquityPlist

/// The fast XML scanner and libxml2's reader agree: whatever the scanner reads, libxml2 reads
/// to the same value (the scanner may decline and leave a file to libxml2, never read it
/// otherwise). And the files Ubiquity and Apple's tools write take the fast path.
@Suite("The fast XML scanner agrees with libxml2")
struct XMLScannerAgreementTests {
    /// nil when they agree; else what differs.
    static func disagreement(_ bytes: [UInt8]) -> String? {
        bytes.withUnsafeBufferPointer { buffer in
            guard let fast = XMLPlistScanner.decode(buffer, limits: .default) else { return nil }
            do throws(PlistError) {
                let slow = try XMLPlistReader.decode(buffer, limits: .default)
                return fast == slow ? nil : "scanner read \(fast), libxml2 read \(slow)"
            } catch {
                return "scanner read \(fast), libxml2 refused: \(error)"
            }
        }
    }

    static func scanned(_ text: String) -> PlistValue? {
        Array(text.utf8).withUnsafeBufferPointer { XMLPlistScanner.decode($0, limits: .default) }
    }

    @Test func ourOwnFilesTakeTheFastPath() throws {
        var value = Samples.records(50)
        guard case var .dictionary(d) = Samples.everything else { Issue.record("sample is a dictionary"); return }
        d["records"] = value
        value = .dictionary(d)
        let xml = try PropertyListCodec.encode(value, format: .xml)
        let fast = xml.withUnsafeBufferPointer { XMLPlistScanner.decode($0, limits: .default) }
        #expect(fast == value)
        #expect(Self.disagreement(xml) == nil)
    }

    @Test func everyPlistlibFixtureReadsTheSameBothWays() throws {
        var fast = 0
        for file in PlistlibFixtureTests.files("valid") + PlistlibFixtureTests.files("invalid") {
            let bytes = [UInt8](try Data(contentsOf: file))
            guard PropertyListCodec.detectFormat(bytes) == .xml else { continue }
            if let problem = Self.disagreement(bytes) { Issue.record("\(file.lastPathComponent): \(problem)") }
            if bytes.withUnsafeBufferPointer({ XMLPlistScanner.decode($0, limits: .default) }) != nil { fast += 1 }
        }
        // Most of CPython's XML fixtures are plain UTF-8 plists: the scanner reads them.
        #expect(fast > 100, "only \(fast) fixtures took the fast path")
    }

    /// What the scanner does with each construct XML allows: reads it as libxml2 would, or
    /// declines it (nil here); never anything else.
    static let constructs: [(String, PlistValue?)] = [
        ("<plist><string>a\r\nb\rc</string></plist>", .string("a\nb\nc")),  // line ends normalized
        ("<plist><string>a&#13;b&#x0D;</string></plist>", .string("a\rb\r")),  // referenced CR kept
        ("<plist><string>x<!-- note -->y</string></plist>", .string("xy")),
        ("<plist><string>&lt;&gt;&amp;&apos;&quot;&#x1F600;&#233;</string></plist>", .string("<>&'\"😀é")),
        ("\u{FEFF}<?xml version='1.0' encoding='utf-8' standalone=\"yes\" ?><plist version=\"1.0\"><true/></plist>", .boolean(true)),
        ("<?xml version=\"1.0\"?>\n<!DOCTYPE plist PUBLIC \"-//Apple//DTD PLIST 1.0//EN\" \"http://www.apple.com/DTDs/PropertyList-1.0.dtd\">\n<plist><integer>1</integer></plist>\n", .integer(1)),
        ("<!DOCTYPE plist SYSTEM \"file.dtd\"><plist><integer>1</integer></plist>", .integer(1)),
        ("<!DOCTYPE plist><plist><integer>2</integer></plist>", .integer(2)),
        ("<plist><dict><key>CF$UID</key><integer>7</integer></dict></plist>", .uid(7)),
        ("<plist><dict><key>a</key><integer>1</integer><key>a</key><integer>2</integer></dict></plist>", .dictionary(["a": .integer(2)])),
        ("<dict><key/><string/></dict>", .dictionary(["": .string("")])),
        ("<plist>  <!-- c --> <array> <string> x </string> </array> </plist> <!-- after -->", .array([.string(" x ")])),
        ("<plist><string>]]</string></plist>", .string("]]")),
        // Declined: libxml2 reads or refuses these.
        ("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><plist><string>x</string></plist>", nil),
        ("<?xml version=\"1.1\"?><plist><string>x</string></plist>", nil),
        ("<!DOCTYPE plist [<!ENTITY e \"x\">]><plist><string>&e;</string></plist>", nil),
        ("<plist><string><![CDATA[<x>]]></string></plist>", nil),
        ("<plist><string>a<?pi x?></string></plist>", nil),
        ("<plist><string>a]]>b</string></plist>", nil),
        ("<plist><string>&#0;</string></plist>", nil),
        ("<plist><string>&#xD800;</string></plist>", nil),
        ("<plist><string>&#xFFFE;</string></plist>", nil),
        ("<plist><string>\u{1}</string></plist>", nil),
        ("<plist><string>\u{FFFE}</string></plist>", nil),
        ("<plist><string>a</strin></plist>", nil),
        ("<plist><string a='1' a='2'>a</string></plist>", nil),
        ("<plist><string a='<'>a</string></plist>", nil),
        ("<plist><string>a<!-- x -- y --></string></plist>", nil),
        ("<plist><integer>1</integer><integer>2</integer></plist>", nil),
        ("<plist><dict><string>v</string></dict></plist>", nil),
        ("<plist><dict><key>k</key></dict></plist>", nil),
        ("<plist><array>x</array></plist>", nil),
        ("<plist><integer>x</integer></plist>", nil),
        ("<plist><real>0x10</real></plist>", nil),
        ("<plist/>", nil),
        ("<plist><string>a</string></plist>trailing", nil),
        ("  <?xml version=\"1.0\"?><plist><true/></plist>", nil),
        ("<plist><true/></plist><plist><true/></plist>", nil),
        ("<plist><élément/></plist>", nil),
    ]

    @Test(arguments: constructs.indices)
    func eachConstructIsReadOrDeclined(index: Int) {
        let (text, expected) = Self.constructs[index]
        #expect(Self.scanned(text) == expected, "\(text.debugDescription)")
        #expect(Self.disagreement(Array(text.utf8)) == nil, "\(text.debugDescription)")
    }

    /// Seeded random edits of a valid file that insert XML's rare constructs and break its
    /// syntax: every result either is declined or reads as libxml2 reads it.
    @Test func randomEditsNeverMakeTheReadersDisagree() throws {
        let valid = try PropertyListCodec.encode(MutationTests.original, format: .xml)
        let pieces = ["<!-- c -->", "<!--", "-->", "&amp;", "&#13;", "&#x0;", "&e;", "&", "]]>", "\r\n", "\r", "<?pi?>",
                      "<![CDATA[x]]>", " a='1'", "/>", "</string>", "<string>", "<key>k</key>", "<dict>", "</dict>",
                      "<array/>", "<true/>", "\u{0}", "\u{FEFF}", "é", "\t", "<!DOCTYPE plist>", "<?xml version=\"1.0\"?>"]
        for seed in SeededGenerator.testSeeds([0x5CA7_0001, 0x5CA7_0002]) {
            var rng = SeededGenerator(seed: seed)
            for iteration in 0 ..< 2000 {
                var bytes = valid
                for _ in 0 ... rng.next() % 3 {
                    let at = Int(rng.next() % UInt64(bytes.count + 1))
                    switch rng.next() % 3 {
                    case 0: bytes.insert(contentsOf: Array(pieces[Int(rng.next() % UInt64(pieces.count))].utf8), at: at)
                    case 1: if at < bytes.count { bytes.remove(at: at) }
                    default: if at < bytes.count { bytes[at] ^= 1 << UInt8(rng.next() % 8) }
                    }
                }
                if let problem = Self.disagreement(bytes) {
                    Issue.record("seed \(seed), edit \(iteration): \(problem)\n\(String(decoding: bytes, as: UTF8.self).prefix(400))")
                    return
                }
            }
        }
    }
}

extension XMLScannerAgreementTests {
    /// libxml2 stops at 256 nested elements; the scanner leaves deeper files to it, so a
    /// document's fate does not depend on which reader saw it.
    @Test(arguments: [200, 254, 255, 256, 300])
    func nestingAtLibxml2sLimitIsJudgedAlike(depth: Int) {
        let text = "<plist>" + String(repeating: "<array>", count: depth) + String(repeating: "</array>", count: depth) + "</plist>"
        let limits = PlistLimits(maxDepth: 1000)
        let bytes = Array(text.utf8)
        bytes.withUnsafeBufferPointer { buffer in
            let fast = XMLPlistScanner.decode(buffer, limits: limits)
            let slow = Result { () throws(PlistError) in try XMLPlistReader.decode(buffer, limits: limits) }
            if let fast { #expect((try? slow.get()) == fast, "depth \(depth)") }
            if depth <= 200 { #expect(fast != nil, "depth \(depth) takes the fast path") }
        }
    }
}
