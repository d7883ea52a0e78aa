import Foundation
import Testing

/// The library's shape as Docs/Architecture.md ("Small functions") states it.
@Suite("Source shape")
struct SourceShapeTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

    @Test func noFunctionOfTheLibraryIsLongerThanEightyLines() throws {
        let listed = try CLIPlistTests.run("/usr/bin/env", ["python3", "scripts/long-functions.py", "--limit", "80"], in: Self.repository)
        #expect(listed.status == 0, "\(listed.output)")
        #expect(listed.output.isEmpty, "split these functions:\n\(listed.output)")
    }

    @Test func theCounterFindsALongFunction() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("shape-" + UUID().uuidString).path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let body = (1...81).map { "    let v\($0) = \($0) // {" }.joined(separator: "\n")
        try "func long() {\n\(body)\n}\nfunc short() {\n}\n".write(toFile: folder + "/Long.swift", atomically: true, encoding: .utf8)
        let listed = try CLIPlistTests.run("/usr/bin/env", ["python3", "scripts/long-functions.py", "--limit", "80", folder], in: Self.repository)
        #expect(listed.output.contains("83  \(folder)/Long.swift:1  func long"), "\(listed.output)")
        #expect(!listed.output.contains("short"))
    }
}
