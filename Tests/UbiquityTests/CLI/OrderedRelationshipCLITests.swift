import Foundation
import Testing
@testable import Ubiquity

/// `relate --at`, `move --to` and ordered `fetch`, as Docs/CLI.md ("Ordered relationships") shows them.
@Suite("CLI: ordered relationships")
struct OrderedRelationshipCLITests {
    @Test func documentedExamplesRunAsShown() throws {
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let doc = try String(contentsOf: repository.appendingPathComponent("Docs/CLI.md"), encoding: .utf8)
        let lines = doc.components(separatedBy: "\n")
        let start = try #require(lines.firstIndex { $0.hasPrefix("<!-- ordered-examples:") })
        let end = try #require(lines.firstIndex { $0 == "<!-- /ordered-examples -->" })
        #expect(lines[start + 1] == "```console" && lines[end - 1] == "```")
        var steps: [(command: String, output: [String])] = []
        for line in lines[(start + 2) ..< (end - 1)] {
            if line.hasPrefix("$ ") { steps.append((String(line.dropFirst(2)), [])) } else { steps[steps.count - 1].output.append(line) }
        }
        #expect(steps.count == 13)
        let sandbox = try CLISandbox()
        try FileManager.default.createSymbolicLink(atPath: sandbox.root + "/containers", withDestinationPath: repository.appendingPathComponent("containers").path)
        let binaryFolder = URL(fileURLWithPath: try UbiqBinary.path()).deletingLastPathComponent().path
        for step in steps {
            let result = try CLIPlistTests.run("/bin/sh", ["-c", step.command], in: sandbox.root, path: binaryFolder)
            let shown = step.output.isEmpty ? "" : step.output.joined(separator: "\n") + "\n"
            #expect(result.output == shown, "$ \(step.command)")
        }
    }
}
