import Foundation
import Testing
import Ubiquity
import UbiquityTestSupport

/// The Swift snippets of the DocC articles and Docs/*.md compile and do what the pages say: each
/// is copied verbatim in ArticleSnippets.swift (this checks the copies are current), and the
/// Getting started one runs on a first launch and a second one.
@Suite("Article snippets")
struct ArticleSnippetTests {
    static let catalog = DocExampleTests.repository + "/Sources/Ubiquity/Ubiquity.docc"
    static let snippetFile = DocExampleTests.repository + "/Tests/UbiquityTests/Docs/ArticleSnippets.swift"

    /// The DocC articles and Docs/*.md; README's snippet is not among them yet.
    static func pagesWithSnippets() throws -> [String] {
        let articles = try FileManager.default.contentsOfDirectory(atPath: catalog).filter { $0.hasSuffix(".md") }.sorted()
            .map { "Sources/Ubiquity/Ubiquity.docc/" + $0 }
        return articles + DocExampleTests.pages.filter { $0.hasPrefix("Docs/") }
    }

    @Test func everySnippetIsCompiledHere() throws {
        let compiled = try String(contentsOfFile: Self.snippetFile, encoding: .utf8).components(separatedBy: "\n")
            .map { $0.trimmingCharacters(in: .whitespaces) }
        var snippets = 0
        for page in try Self.pagesWithSnippets() {
            let lines = try String(contentsOfFile: DocExampleTests.repository + "/" + page, encoding: .utf8).components(separatedBy: "\n")
            var index = 0
            while index < lines.count {
                guard lines[index] == "```swift" else { index += 1; continue }
                let end = lines[(index + 1)...].firstIndex { $0.hasPrefix("```") } ?? lines.count
                defer { index = end + 1 }
                if index > 0, lines[index - 1].hasPrefix("<!-- doc-test: not run:") {
                    print("\(page):\(index + 1): not compiled: \(lines[index - 1])")
                    continue
                }
                // Imports stand at the top of the snippet file, once; indentation may differ.
                var code = lines[(index + 1) ..< end].filter { !$0.hasPrefix("import ") }.map { $0.trimmingCharacters(in: .whitespaces) }
                while code.first == "" { code.removeFirst() }
                while code.last == "" { code.removeLast() }
                snippets += 1
                let found = code.isEmpty || compiled.indices.contains { start in
                    start + code.count <= compiled.count && Array(compiled[start ..< start + code.count]) == code
                }
                #expect(found, "\(page):\(index + 1): this snippet is not in Tests/UbiquityTests/Docs/ArticleSnippets.swift as written; copy it there")
            }
        }
        #expect(snippets >= 3)
    }

    @Test func gettingStartedRunsOnAFirstLaunchAndAgain() throws {
        let cloud = try TestCloud()
        let device = cloud.root + "/devices/iphone"
        let first = try startNotes(cloud: cloud.root + "/cloud", device: device)
        #expect(first.storeKind == .account)
        first.close()
        // The second launch finds the device and its account store; the first note is there.
        let second = try startNotes(cloud: cloud.root + "/cloud", device: device)
        #expect(second.storeKind == .account)
        let notes = try second.newContext().fetch(FetchRequest(entity: "Note"))
        #expect(notes.map { $0["title"] } == [.string("Groceries"), .string("Groceries")])
        second.close()
    }

    @Test func twoDevicesLiveImportsWithNoSync() throws {
        let cloud = try TestCloud()
        let phone = try startNotes(cloud: cloud.cloud, device: cloud.devicePath("phone"))
        defer { phone.close() }
        let mac = try startNotes(cloud: cloud.cloud, device: cloud.devicePath("mac"))
        defer { mac.close() }
        #expect(try showLiveImport(phone: phone, mac: mac))
        #expect(try mac.count(of: "Note", where: "title == 'From the phone'") == 1)
    }
}
