import Foundation
import Testing
@testable import UbiquityPlist

/// The plists of CPython's test_plistlib.py (Tests/Fixtures/plistlib, see its README),
/// through the library: every valid one survives typed JSON, binary and XML exactly, and
/// every one plistlib refuses is refused here too, but for the documented exceptions. The
/// comparison of values with plistlib's own reading is CLIPlistTests' (through `ubiq`).
@Suite struct PlistlibFixtureTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures/plistlib")

    static func files(_ sub: String) -> [URL] {
        let directory = folder.appendingPathComponent(sub)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { $0.hasSuffix(".plist") }.sorted().map { directory.appendingPathComponent($0) }
    }

    /// Files plistlib refuses that are good plists: plistlib's limits, not the file's fault.
    static let readThoughPlistlibRefuses: [String: String] = [
        "test_invalid_binary-016cb06874.plist": "a date of 1.4e14 s, beyond Python's datetime (CoreFoundation reads it)",
        "test_invalid_binary-39ca7e9e34.plist": "an infinite date, beyond Python's datetime (CoreFoundation reads it)",
        "test_invalid_binary-6f6eaca3c8.plist": "a NaN date, which Python's datetime cannot hold (CoreFoundation reads it)",
        "test_invalid_binary-f3eed99d20.plist": "a date in the year 10711, beyond Python's datetime (CoreFoundation reads it)",
    ]

    @Test func fixturesArePresent() {
        #expect(Self.files("valid").count == 316)
        #expect(Self.files("invalid").count == 192)
    }

    @Test func everyValidPlistSurvivesJSONBinaryAndXML() throws {
        var xmlRefusals = 0
        for file in Self.files("valid") {
            let bytes = [UInt8](try Data(contentsOf: file))
            let document = try PlistDocument(decoding: bytes)
            let value = document.value
            for style in [PlistJSON.Style.typed] {
                let json = try document.encoded(as: .json, jsonStyle: style)
                #expect(try PlistDocument(decoding: json).value == value, "\(file.lastPathComponent) via JSON")
            }
            let limits = PlistDocument.toolLimits
            #expect(try PropertyListCodec.decode(PropertyListCodec.encodeBinary(value), limits: limits) == value, "\(file.lastPathComponent) via binary")
            do {
                let xml = try PropertyListCodec.encode(value, format: .xml)
                // libxml2 reads no more than 256 nested elements: test_deep_nesting's 300
                // arrays are written, but not read back, as XML.
                if file.lastPathComponent.hasPrefix("test_deep_nesting") {
                    #expect(throws: PlistError.self) { try PropertyListCodec.decode(xml, limits: limits) }
                    continue
                }
                #expect(try PropertyListCodec.decode(xml, limits: limits) == value, "\(file.lastPathComponent) via XML")
            } catch {
                xmlRefusals += 1
                #expect(error.message.hasPrefix("XML plist: the null at") || error.message.contains("which XML 1.0 cannot contain"),
                        "\(file.lastPathComponent): \(error)")
            }
        }
        // 29 control characters in test_controlcharacters' binary files, 3 arrays of None.
        #expect(xmlRefusals == 32)
    }

    @Test func everyPlistPlistlibRefusesIsRefused() {
        for file in Self.files("invalid") {
            let name = file.lastPathComponent
            let bytes = (try? [UInt8](Data(contentsOf: file))) ?? []
            let readable = (try? PlistDocument(decoding: bytes)) != nil
            #expect(readable == (Self.readThoughPlistlibRefuses[name] != nil), "\(name)")
        }
    }
}
