import Foundation
import Testing
@testable import Ubiquity

/// The checksum's canonical encoding never changes: logs written by earlier builds must verify.
@Suite("Log checksums")
struct ChecksumTests {
    /// Keys sort by their UTF-8 bytes (a prefix first); the expected digest was computed
    /// independently from ContainerFormat's description of the encoding.
    @Test func theCanonicalEncodingIsPinned() {
        let value = PlistValue.dictionary([
            "b": .integer(1), "a": .string("x"), "é": .boolean(true), "": .string("empty"),
            "Z": .array([.string("q"), .dictionary(["ab": .integer(2), "a": .integer(3)])]),
        ])
        #expect(CanonicalEncoding.sha256Hex(of: value) == "47eac05b972f281610e46a9c696d18052b8c850d6def2ebfdc2909e2815f60ca")
        #expect(CanonicalEncoding.precedes("a", "ab") && CanonicalEncoding.precedes("Z", "a") && CanonicalEncoding.precedes("z", "é"))
        #expect(!CanonicalEncoding.precedes("a", "a") && CanonicalEncoding.precedes("", "a"))
    }

    /// The demo container's logs were written by an earlier build: they still verify.
    @Test func logsOfTheDemoContainerVerify() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("containers/demo/cloud").path
        let files = FileManager.default.enumerator(atPath: root)?.compactMap { $0 as? String }
            .filter { $0.hasSuffix(".1.cdt") && !$0.contains("0000000099-") } ?? []
        #expect(files.count >= 2)
        for file in files {
            let bytes = try AtomicFile.read(root + "/" + file, limit: 1 << 20)
            #expect(throws: Never.self) { _ = try TransactionLog(decoding: bytes, model: .notes) }
        }
    }
}
