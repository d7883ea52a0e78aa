import Foundation
import Testing

/// `containers/demo`, where the README sends newcomers first, cannot go stale: its script makes
/// a fresh one with this build, and what `status`, `peers`, `doctor` and `conflicts` say about
/// the committed one and the fresh one is the same, but for peer IDs, times and numbers.
/// Lines are compared as a sorted list per command: peers are listed by their random IDs, so the
/// order of otherwise equal lines differs between any two makings.
@Suite("The demo container")
struct DemoContainerTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().path

    @Test func theCommittedDemoIsWhatItsScriptMakes() throws {
        let sandbox = try CLISandbox()
        let binary = try UbiqBinary.path()
        let made = try CLIPlistTests.run("/usr/bin/env", ["UBIQ=" + binary, "bash", Self.repository + "/scripts/make-demo-container.sh", sandbox.root + "/fresh"],
                                         in: Self.repository)
        try #require(made.status == 0, "\(made.output)")
        // Commands change the stores: both are read through copies, as CLI.md says to.
        try FileManager.default.copyItem(atPath: Self.repository + "/containers/demo", toPath: sandbox.root + "/committed")
        let committed = try Self.describe(sandbox.root + "/committed", binary: binary)
        let fresh = try Self.describe(sandbox.root + "/fresh", binary: binary)
        #expect(committed == fresh, "containers/demo is stale: run scripts/make-demo-container.sh")
        #expect(committed.contains("baseline by") && committed.contains("quarantined") && committed.contains("won over"), "\(committed)")
    }

    /// What the inspection commands print about a demo container, peer IDs, dates and numbers masked.
    static func describe(_ demo: String, binary: String) throws -> String {
        var text = ""
        for (command, device) in [("status", "iphone"), ("peers", "iphone"), ("doctor", "iphone"), ("conflicts", "ipad")] {
            let result = try CLIPlistTests.run(binary, [command, "--cloud", "cloud", "--device", "devices/" + device], in: demo)
            let lines = mask(result.output).split(separator: "\n", omittingEmptySubsequences: false).sorted()
            text += "$ \(command) (\(result.status))\n" + lines.joined(separator: "\n") + "\n"
        }
        return text
    }

    /// Peer IDs, dates and numbers replaced by placeholders.
    static func mask(_ text: String) -> String {
        var masked = text
        for (pattern, replacement) in [("[0-9a-fA-F]{8}(-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}", "UUID"),
                                       ("[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z", "DATE"), ("[0-9]+", "N")] {
            masked = masked.replacingOccurrences(of: pattern, with: replacement, options: .regularExpression)
        }
        return masked
    }
}
