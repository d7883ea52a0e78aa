import Foundation
import Testing

/// Bad input of every kind ends in one `ubiq: error: …` line and a non-zero exit — never a
/// trap, a stack trace or a usage screen (Docs/CLI.md).
@Suite("CLI errors")
struct CLIErrorTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        let arguments: [String]
        /// Part of the message the user must see.
        let expected: String
        var device: String? = "phone"
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "unknown entity", arguments: ["insert", "Bogus", "title=x"], expected: "unknown entity 'Bogus'"),
        Case(name: "bad attribute value", arguments: ["insert", "Note", "pinned=maybe"], expected: "Note.pinned"),
        Case(name: "bad date value", arguments: ["insert", "Note", "created=yesterday"], expected: "Note.created"),
        Case(name: "unknown attribute", arguments: ["insert", "Note", "color=red"], expected: "'color'"),
        Case(name: "assignment without =", arguments: ["insert", "Note", "title"], expected: "attribute=value"),
        Case(name: "to-many set by insert", arguments: ["insert", "Note", "tags=Tag/x"], expected: "to-many"),
        Case(name: "malformed global ID", arguments: ["update", "garbage", "title=x"], expected: "invalid object ID"),
        Case(name: "absent object", arguments: ["delete", "Note/nothing-here"], expected: "no object Note/nothing-here"),
        Case(name: "relate to absent target", arguments: ["relate", "Note/first", "tags", "Tag/none"], expected: "no object Tag/none"),
        Case(name: "unknown relationship", arguments: ["relate", "Note/first", "owner", "Tag/none"], expected: "'owner'"),
        Case(name: "key too long", arguments: ["insert", "Note", "--id", String(repeating: "k", count: 300)], expected: "1 to 200 bytes"),
        Case(name: "missing device", arguments: ["fetch", "Note"], expected: "no device", device: "nowhere"),
        Case(name: "device created twice", arguments: ["device", "init"], expected: "already exists"),
        Case(name: "unknown command", arguments: ["frobnicate"], expected: "frobnicate", device: nil),
        Case(name: "mistyped command", arguments: ["insrt", "Note"], expected: "'insrt' is not a command of 'ubiq'; did you mean 'insert'?", device: nil),
        Case(name: "mistyped subcommand", arguments: ["device", "int"], expected: "did you mean 'init'?", device: nil),
        Case(name: "help for no command", arguments: ["help", "nope"], expected: "'nope' is not a command of 'ubiq'", device: nil),
        Case(name: "negative limit", arguments: ["fetch", "Note", "--limit", "-1"], expected: "--limit must not be negative"),
        Case(name: "missing argument", arguments: ["insert"], expected: "<entity>"),
        Case(name: "bad option value", arguments: ["fetch", "Note", "--limit", "many"], expected: "--limit"),
        Case(name: "bad predicate", arguments: ["fetch", "Note", "--where", "title =="], expected: "invalid predicate"),
        Case(name: "bad sort", arguments: ["fetch", "Note", "--sort", "title:sideways"], expected: "--sort"),
        Case(name: "unreadable model file", arguments: ["fetch", "Note", "--model", "missing-model.plist"], expected: "cannot read model file"),
        Case(name: "garbage model file", arguments: ["fetch", "Note", "--model", "garbage.plist"], expected: "cannot read model file"),
        Case(name: "log level out of range", arguments: ["sync", "--log-level", "7"], expected: "log level"),
        Case(name: "bad content name", arguments: ["sync", "--content", "a.b"], expected: "content name"),
        // Hostile sizes and depths: a one-line error, never a stack overflow or a hang.
        Case(name: "5,000 nested parentheses", arguments: ["fetch", "Note", "--where", String(repeating: "(", count: 5_000) + "title == 'x'" + String(repeating: ")", count: 5_000)],
             expected: "nest deeper than 100 levels"),
        Case(name: "10,000 NOTs", arguments: ["fetch", "Note", "--where", String(repeating: "NOT ", count: 10_000) + "pinned == true"], expected: "nest deeper than 100 levels"),
        Case(name: "long content name", arguments: ["sync", "--content", String(repeating: "c", count: 5_000)], expected: "(5000 bytes) must be 1 to 100"),
        Case(name: "long user name", arguments: ["device", "init", "--user", String(repeating: "u", count: 5_000)], expected: "(5000 bytes)", device: "another"),
        Case(name: "long attribute name", arguments: ["insert", "Note", String(repeating: "a", count: 5_000) + "=1"], expected: "has no property"),
        Case(name: "model file that is a FIFO", arguments: ["fetch", "Note", "--model", "fifo.plist"], expected: "a FIFO, not a regular file"),
        Case(name: "deeply nested model file", arguments: ["fetch", "Note", "--model", "deep.plist"], expected: "cannot read model file"),
    ]

    @Test(arguments: cases)
    func oneLineError(_ testCase: Case) throws {
        let sandbox = try CLISandbox()
        try sandbox.initDevice("phone")
        try sandbox.succeed(["insert", "Note", "--id", "first", "title=First"], device: "phone")
        try Data("this is not a property list".utf8).write(to: URL(fileURLWithPath: sandbox.root + "/garbage.plist"))
        mkfifo(sandbox.root + "/fifo.plist", 0o644)
        let deep = "<?xml version=\"1.0\"?><plist version=\"1.0\">" + String(repeating: "<array>", count: 100_000) + String(repeating: "</array>", count: 100_000) + "</plist>"
        try Data(deep.utf8).write(to: URL(fileURLWithPath: sandbox.root + "/deep.plist"))

        // Without a device the arguments go alone, so the parser meets the mistake first.
        let result = testCase.device == nil
            ? try UbiqProcess(binary: sandbox.binary, arguments: testCase.arguments, directory: sandbox.root).wait(timeout: 30)
            : try sandbox.run(testCase.arguments, device: testCase.device, timeout: 30)
        #expect(!result.signaled && !result.timedOut, "no trap, no hang: \(result)")
        #expect(result.status != 0, "non-zero exit: \(result)")
        #expect(result.stderrLines.count == 1, "exactly one stderr line: \(result)")
        #expect(result.stderr.hasPrefix("ubiq: error: "), "\(result)")
        #expect(result.stderr.contains(testCase.expected), "names the problem ('\(testCase.expected)'): \(result)")
        #expect(result.stdout.isEmpty, "nothing on stdout: \(result)")
        if testCase.device == "nowhere" {
            #expect(!FileManager.default.fileExists(atPath: sandbox.device("nowhere")), "a mistyped --device leaves no folder behind")
        }
    }

    /// A mistake in a command's words points at the help of that command, and the command the
    /// hint names works: it prints that command's usage.
    @Test func hintsPointAtTheHelpOfTheCommandThatFailed() throws {
        let sandbox = try CLISandbox()
        let cases: [([String], String)] = [
            (["device", "init", "--frobnicate"], "ubiq help device init"),
            (["insert"], "ubiq help insert"),
            (["--cloud", "c", "sync", "--bogus"], "ubiq help sync"),
            (["plist", "convert", "a.plist"], "ubiq help plist convert"),
            (["device", "int"], "ubiq help device"),
            (["help", "device", "nope"], "ubiq help device"),
            (["insrt"], "ubiq help"),
        ]
        for (arguments, help) in cases {
            let result = try UbiqProcess(binary: sandbox.binary, arguments: arguments, directory: sandbox.root).wait(timeout: 30)
            #expect(result.status != 0 && result.stderrLines.count == 1, "\(result)")
            #expect(result.stderr.hasSuffix(" (see '\(help)')\n"), "\(arguments) points at '\(help)': \(result)")
            let words = Array(help.split(separator: " ").map(String.init).dropFirst())
            let shown = try UbiqProcess(binary: sandbox.binary, arguments: words, directory: sandbox.root).wait(timeout: 30)
            let usage = (["ubiq"] + words.dropFirst()).joined(separator: " ")
            #expect(shown.succeeded && shown.stdout.contains("USAGE: \(usage)"), "\(help) shows the usage of '\(usage)': \(shown)")
        }
    }

    @Test func helpHasAnExampleForEveryCommand() throws {
        let sandbox = try CLISandbox()
        for command in [["device", "init"], ["insert"], ["update"], ["delete"], ["relate"], ["unrelate"], ["fetch"],
                        ["sync"], ["dump"], ["model"], ["soak"], ["demo"], ["bug-report"], ["scenario", "replay"]] {
            let result = try sandbox.run(command + ["--help"], device: nil, timeout: 30)
            #expect(result.succeeded, "\(result)")
            #expect(result.stdout.contains("Example: ubiq"), "help of \(command) shows an example")
        }
    }
}
