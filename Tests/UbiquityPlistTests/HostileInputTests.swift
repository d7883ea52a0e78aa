import Foundation
import Testing
@testable import UbiquityPlist

/// Decodes `bytes`, expecting a PlistError; returns it.
func expectError(_ bytes: [UInt8], limits: PlistLimits = .default, sourceLocation: SourceLocation = #_sourceLocation) -> PlistError? {
    do {
        let value = try PropertyListCodec.decode(bytes, limits: limits)
        Issue.record("expected an error, decoded \(value)", sourceLocation: sourceLocation)
        return nil
    } catch {
        #expect(!error.message.isEmpty, sourceLocation: sourceLocation)
        return error
    }
}

@Suite struct HostileBinaryTests {
    @Test func cyclicArray() {
        let file = HandmadeBinaryPlist(objects: [[0xA1, 0x00]])  // array whose element is itself
        let error = expectError(file.bytes)
        #expect(error?.message.contains("cyclic") == true)
        #expect(error?.location == .byteOffset(8))
    }

    @Test func indirectCycleThroughDictionary() {
        let file = HandmadeBinaryPlist(objects: [[0xD1, 0x01, 0x02], [0x51, 0x6B], [0xA1, 0x00]])
        #expect(expectError(file.bytes)?.message.contains("cyclic") == true)
    }

    @Test func offsetTablePointsOutsideFile() {
        var file = HandmadeBinaryPlist(objects: [[0x08]])
        file.offsets = [0xF0]
        let error = expectError(file.bytes)
        #expect(error?.message.contains("offset table entry 0") == true)
        #expect(error?.location == .byteOffset(9))
        #expect(error?.description.hasSuffix("(byte offset 9)") == true)
    }

    @Test func hugeObjectCount() {
        var file = HandmadeBinaryPlist(objects: [[0x08]])
        file.objectCount = 1 << 60
        #expect(expectError(file.bytes)?.message.contains("1152921504606846976 objects") == true)
        // Also when the limit would allow it, the table cannot fit in the file.
        #expect(expectError(file.bytes, limits: PlistLimits(maxObjects: .max)) != nil)
    }

    @Test func absurdCountsAndOffsets() {
        // An array claiming 2^62 elements through an 8-byte length.
        let bigArray = HandmadeBinaryPlist(objects: [[0xAF, 0x13, 0x40, 0, 0, 0, 0, 0, 0, 0]])
        #expect(expectError(bigArray.bytes) != nil)
        // A string claiming more bytes than the file holds.
        let longString = HandmadeBinaryPlist(objects: [[0x5F, 0x11, 0xFF, 0xFF, 0x41]])
        #expect(expectError(longString.bytes)?.message.contains("runs past") == true)
        // A UTF-16 length whose byte size overflows.
        let utf16 = HandmadeBinaryPlist(objects: [[0x6F, 0x13, 0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]])
        #expect(expectError(utf16.bytes) != nil)
        // Table offset in the trailer beyond the file, and top object out of range.
        var badTable = HandmadeBinaryPlist(objects: [[0x08]])
        badTable.tableOffset = UInt64.max
        #expect(expectError(badTable.bytes) != nil)
        var badTop = HandmadeBinaryPlist(objects: [[0x08]])
        badTop.top = 5
        #expect(expectError(badTop.bytes)?.message.contains("top object") == true)
        // Reference beyond the object count.
        let badRef = HandmadeBinaryPlist(objects: [[0xA1, 0x09]])
        #expect(expectError(badRef.bytes)?.message.contains("reference 9") == true)
        // Bad trailer sizes.
        var badSizes = HandmadeBinaryPlist(objects: [[0x08]])
        badSizes.refSize = 9
        #expect(expectError(badSizes.bytes)?.message.contains("reference size") == true)
    }

    @Test func truncatedFiles() {
        let bytes = PropertyListCodec.encodeBinary(Samples.everything)
        for length in [0, 5, 8, 20, 40, bytes.count / 2, bytes.count - 1] {
            #expect(expectError(Array(bytes.prefix(length))) != nil, "length \(length)")
        }
    }

    @Test func nonStringKey() {
        let file = HandmadeBinaryPlist(objects: [[0xD1, 0x01, 0x01], [0x10, 0x05]])
        #expect(expectError(file.bytes)?.message.contains("not a string") == true)
    }

    @Test func integerTooWideFor64Bits() throws {
        let file = HandmadeBinaryPlist(objects: [[0x14, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0]])
        #expect(expectError(file.bytes)?.message.contains("64 bits") == true)
        // A negative 16-byte value that fits is read.
        let negative = HandmadeBinaryPlist(objects: [[0x14] + Array(repeating: 0xFF, count: 16)])
        #expect(try PropertyListCodec.decode(negative.bytes) == .integer(-1))
    }

    @Test func depthTenThousand() {
        // Object i is an array holding object i + 1; the last is empty.
        var objects = [[UInt8]]()
        for i in 0 ..< 10_000 { objects.append([0xA1, UInt8((i + 1) >> 8), UInt8((i + 1) & 0xFF)]) }
        objects.append([0xA0])
        var file = HandmadeBinaryPlist(objects: objects)
        file.refSize = 2
        file.offsetSize = 2
        let error = expectError(file.bytes)
        #expect(error?.message.contains("nesting depth exceeds the limit of 256") == true)
        if case .byteOffset = error?.location {} else { Issue.record("no byte offset") }
    }

    @Test func sharedReferencesCannotExplode() {
        // 40 levels of arrays holding the next level twice: 2^40 values if expanded.
        var objects = [[UInt8]]()
        for i in 0 ..< 40 { objects.append([0xA2, UInt8(i + 1), UInt8(i + 1)]) }
        objects.append([0x09])
        let file = HandmadeBinaryPlist(objects: objects)
        #expect(expectError(file.bytes)?.message.contains("limit") == true)
    }

    @Test func sizeAndObjectLimits() throws {
        let bytes = try PropertyListCodec.encode(Samples.records(50), format: .binary)
        #expect(expectError(bytes, limits: PlistLimits(maxBytes: 100)) != nil)
        #expect(expectError(bytes, limits: PlistLimits(maxObjects: 100)) != nil)
        // format dict > inserted array > record dict > values dict: four levels.
        #expect(expectError(bytes, limits: PlistLimits(maxDepth: 3)) != nil)
        #expect((try? PropertyListCodec.decode(bytes, limits: PlistLimits(maxDepth: 4))) != nil)
    }

    @Test func garbageIsNotAPlist() {
        #expect(expectError(Array("hello".utf8))?.location == .byteOffset(0))
        #expect(expectError([]) != nil)
        #expect(PropertyListCodec.detectFormat(Array("  \n<plist/>".utf8)) == .xml)
        #expect(PropertyListCodec.detectFormat([1, 2, 3]) == nil)
    }
}

@Suite struct HostileXMLTests {
    private func xml(_ body: String) -> [UInt8] {
        Array("""
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0">
            \(body)
            </plist>
            """.utf8)
    }

    @Test func depthTenThousand() {
        let body = String(repeating: "<array>", count: 10_000) + String(repeating: "</array>", count: 10_000)
        let error = expectError(xml(body))
        #expect(error?.message.contains("depth") == true, "\(String(describing: error))")
        if case let .lineColumn(line, _) = error?.location { #expect(line == 4) } else { Issue.record("no line") }
        #expect(expectError(xml(Samples.xmlNested(300)), limits: .default) != nil)
        #expect(expectError(xml(Samples.xmlNested(20)), limits: PlistLimits(maxDepth: 10)) != nil)
    }

    @Test func errorLines() {
        let unknown = expectError(xml("<dict>\n\t<key>a</key>\n\t<foo>1</foo>\n</dict>"))
        #expect(unknown?.message.contains("unknown element <foo>") == true)
        #expect(unknown?.location == .lineColumn(line: 6, column: 2))

        let missingKey = expectError(xml("<dict>\n<string>x</string>\n</dict>"))
        #expect(missingKey?.message.contains("expected <key> in <dict>") == true)
        if case let .lineColumn(line, _) = missingKey?.location { #expect(line == 5) } else { Issue.record("no line") }

        let malformed = expectError(xml("<array>\n<string>x</array>\n</string>"))
        #expect(malformed?.message.contains("malformed XML") == true)
        if case let .lineColumn(line, _) = malformed?.location { #expect(line == 5) } else { Issue.record("no line") }
        #expect(malformed?.description.contains("(line 5, column") == true)
    }

    @Test func badScalars() {
        #expect(expectError(xml("<integer>18446744073709551616</integer>"))?.message.contains("integer out of range") == true)
        #expect(expectError(xml("<integer>-9223372036854775809</integer>"))?.message.contains("integer out of range") == true)
        #expect(expectError(xml("<integer>12a</integer>")) != nil)
        #expect(expectError(xml("<integer/>")) != nil)
        #expect(expectError(xml("<real>abc</real>")) != nil)
        #expect(expectError(xml("<date>2001-02-30T00:00:00Z</date>")) != nil)
        #expect(expectError(xml("<date>yesterday</date>")) != nil)
        #expect(expectError(xml("<data>!!!!</data>")) != nil)
        #expect(expectError(xml("<dict><key>a</key></dict>")) != nil)
        #expect(expectError(xml("<array><key>a</key></array>")) != nil)
        #expect(expectError(xml("<string>a<b/></string>")) != nil)
        #expect(expectError(xml("<true>x</true>")) != nil)
        #expect(expectError(xml("<string>a</string><string>b</string>")) != nil)
        #expect(expectError(Array("<plist version=\"1.0\"></plist>".utf8)) != nil)
        #expect(expectError(Array("<plist><array>".utf8)) != nil)
    }

    @Test func invalidEncodingIsAnError() {
        // libxml2 reports this through its global error channel; the reader captures it.
        let bytes = Array("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<plist><string>".utf8) + [0xFF, 0xFE, 0x41]
            + Array("</string></plist>".utf8)
        let error = expectError(bytes)
        #expect(error?.message.hasPrefix("XML plist: malformed XML:") == true, "\(String(describing: error))")
    }

    @Test func entitiesAreNotExpanded() {
        let bomb = """
            <?xml version="1.0"?>
            <!DOCTYPE plist [
              <!ENTITY a "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa">
              <!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">
              <!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">
              <!ENTITY d "&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;">
              <!ENTITY e "&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;">
            ]>
            <plist><string>&e;&e;&e;&e;&e;&e;&e;&e;</string></plist>
            """
        #expect(expectError(Array(bomb.utf8)) != nil)
        let external = """
            <?xml version="1.0"?>
            <!DOCTYPE plist [ <!ENTITY x SYSTEM "file:///etc/passwd"> ]>
            <plist><string>&x;</string></plist>
            """
        #expect(expectError(Array(external.utf8)) != nil)
    }

    @Test func sizeAndObjectLimits() throws {
        let bytes = try PropertyListCodec.encode(Samples.records(50), format: .xml)
        #expect(expectError(bytes, limits: PlistLimits(maxBytes: 100)) != nil)
        #expect(expectError(bytes, limits: PlistLimits(maxObjects: 100)) != nil)
    }
}

extension Samples {
    static func xmlNested(_ depth: Int) -> String {
        String(repeating: "<array>", count: depth) + "<true/>" + String(repeating: "</array>", count: depth)
    }
}
