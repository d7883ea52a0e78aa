import Foundation
import Testing
import Ubiquity

/// The DocC articles' Swift snippets compile and do what the articles say: each is copied
/// verbatim in ArticleSnippets.swift (this checks the copies are current), and the Getting
/// started one runs on a first launch and a second one.
@Suite("Article snippets")
struct ArticleSnippetTests {
    static let catalog = DocExampleTests.repository + "/Sources/Ubiquity/Ubiquity.docc"
    static let snippetFile = DocExampleTests.repository + "/Tests/UbiquityTests/Docs/ArticleSnippets.swift"

    @Test func everySnippetOfEveryArticleIsCompiledHere() throws {
        let compiled = try String(contentsOfFile: Self.snippetFile, encoding: .utf8).components(separatedBy: "\n")
        let articles = try FileManager.default.contentsOfDirectory(atPath: Self.catalog).filter { $0.hasSuffix(".md") }.sorted()
        var snippets = 0
        for article in articles {
            let lines = try String(contentsOfFile: Self.catalog + "/" + article, encoding: .utf8).components(separatedBy: "\n")
            var index = 0
            while index < lines.count {
                guard lines[index] == "```swift" else { index += 1; continue }
                let end = lines[(index + 1)...].firstIndex { $0.hasPrefix("```") } ?? lines.count
                // Imports stand at the top of the snippet file, once.
                let code = lines[(index + 1) ..< end].filter { !$0.hasPrefix("import ") }
                snippets += 1
                let found = code.isEmpty || compiled.indices.contains { start in
                    start + code.count <= compiled.count && Array(compiled[start ..< start + code.count]) == Array(code)
                }
                #expect(found, "\(article):\(index + 1): this snippet is not in Tests/UbiquityTests/Docs/ArticleSnippets.swift as written; copy it there")
                index = end + 1
            }
        }
        #expect(snippets >= 1)
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
}
