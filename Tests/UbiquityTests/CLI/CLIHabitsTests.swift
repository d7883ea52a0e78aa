import Foundation
import Testing

/// Habits of the field that work as people type them: global options before the command,
/// negative numbers as values, a day without a time.
@Suite("CLI habits")
struct CLIHabitsTests {
    @Test func globalOptionsWorkBeforeTheCommand() throws {
        let sandbox = try CLISandbox()
        let device = sandbox.device("phone")
        let before = ["--cloud", sandbox.cloud, "--device", device]
        for arguments in [before + ["device", "init"], before + ["insert", "Note", "--id", "n1", "title=One", "created=2024-05-01"],
                          ["--log-level=0", "--cloud", sandbox.cloud, "sync", "--device", device]] {
            let result = try UbiqProcess(binary: sandbox.binary, arguments: arguments, directory: sandbox.root).wait(timeout: 30)
            #expect(result.succeeded, "\(arguments): \(result)")
        }
        // A day alone is its midnight in UTC.
        let value = try UbiqProcess(binary: sandbox.binary, arguments: before + ["get", "Note/n1", "created"], directory: sandbox.root).wait(timeout: 30)
        #expect(value.succeeded && value.stdout.contains("2024-05-01T00:00:00"), "\(value)")
        // An option's negative value reaches the command, which judges it.
        let negative = try UbiqProcess(binary: sandbox.binary, arguments: before + ["fetch", "Note", "--limit", "-1"], directory: sandbox.root).wait(timeout: 30)
        #expect(!negative.succeeded && negative.stderr.contains("--limit must not be negative"), "\(negative)")
    }
}

extension CLIHabitsTests {
    /// The completion scripts CLI.md tells people to install name the commands and options.
    @Test(arguments: ["bash", "zsh", "fish"])
    func completionScriptsKnowTheCommands(shell: String) throws {
        let sandbox = try CLISandbox()
        let result = try UbiqProcess(binary: sandbox.binary, arguments: ["--generate-completion-script", shell], directory: sandbox.root).wait(timeout: 30)
        #expect(result.succeeded, "\(result)")
        for word in ["insert", "scenario", "fuzz", "move-cloud", "log-level"] {
            #expect(result.stdout.contains(word), "\(shell) completions lack \(word)")
        }
    }
}
