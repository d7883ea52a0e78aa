import Foundation
import Testing

/// Docs that cannot lie: every command block of README.md and Docs/*.md runs, and what a
/// transcript shows is what its commands print (Docs/Architecture.md, "Docs that run"). A new
/// page or block is picked up by itself; a block that cannot run here says why in its marker.
@Suite("Docs that run")
struct DocExampleTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().path

    /// README.md and every Markdown page of Docs/, as paths relative to the repository.
    static let pages: [String] = {
        let docs = (try? FileManager.default.contentsOfDirectory(atPath: repository + "/Docs")) ?? []
        return ["README.md"] + docs.filter { $0.hasSuffix(".md") }.sorted().map { "Docs/" + $0 }
    }()

    static func blocks(of page: String) throws -> [DocBlock] {
        try DocBlock.parse(String(contentsOfFile: repository + "/" + page, encoding: .utf8), file: page)
    }

    @Test(arguments: pages)
    func everyCommandBlockRunsAsShown(page: String) throws {
        var runner: DocBlockRunner?
        for block in try Self.blocks(of: page) {
            switch block.fixture {
            case .notRun(let reason):
                print("\(block): not run: \(reason)")
                continue
            case .fresh:
                runner = try DocBlockRunner(repository: Self.repository)
            case .continues:
                if runner == nil { runner = try DocBlockRunner(repository: Self.repository) }
            }
            guard let runner else { continue }
            for step in block.steps {
                if let reason = step.notRun {
                    print("\(block.file):\(step.line): not run: \(reason)")
                    continue
                }
                let started = Date()
                let outcome = try runner.run(step.command)
                let seconds = Date().timeIntervalSince(started)
                // Slow commands are named, so a contributor sees what a page costs the suite.
                if seconds >= 5 { print("\(block.file):\(step.line): \(Int(seconds)) s") }
                let failure = Self.check(step, of: block, outcome)
                if let failure {
                    Issue.record(Comment(rawValue: failure))
                    break  // the later commands of the block build on this one
                }
            }
        }
    }

    /// Nil when the command did what the block shows, else where and how it differs.
    static func check(_ step: DocBlock.Step, of block: DocBlock, _ outcome: DocBlockRunner.Outcome) -> String? {
        let heading = "\(block.file):\(step.line): $ \(step.command)"
        if outcome.timedOut { return "\(heading)\n  timed out; printed:\n\(outcome.output)" }
        switch block.kind {
        case .script:
            if let error = step.expectedError {
                if outcome.status == 0 || !outcome.output.contains(error) {
                    return "\(heading)\n  should fail with '\(error)'; exit \(outcome.status), printed:\n\(outcome.output)"
                }
            } else if outcome.status != 0 {
                return "\(heading)\n  exit \(outcome.status); printed:\n\(outcome.output)"
            }
            return nil
        case .transcript:
            var printed = outcome.output.components(separatedBy: "\n")
            if printed.last == "" { printed.removeLast() }
            let expected = (block.masked ? step.output.map(DocBlockRunner.mask) : step.output).map(DocBlockRunner.withoutSourceLines)
            let actual = (block.masked ? printed.map(DocBlockRunner.mask) : printed).map(DocBlockRunner.withoutSourceLines)
            guard expected != actual else { return nil }
            let index = zip(expected, actual).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(expected.count, actual.count)
            let shown = index < expected.count ? expected[index] : "(nothing more)"
            let got = index < actual.count ? actual[index] : "(nothing more)"
            return "\(block.file):\(step.line + 1 + index): under $ \(step.command)\n  the doc shows: \(shown)\n  printed:       \(got)"
                + "\n  whole output (exit \(outcome.status)):\n\(outcome.output)"
        }
    }

    /// Every `ubiq` command a page shows is in a block that runs, or the block says why not;
    /// and the markers parse (an unknown word or a reasonless `not run` is an error, not a skip).
    @Test func everyBlockShowingUbiqRunsOrSaysWhyNot() throws {
        var running = 0
        var commands = 0
        var excluded: [String] = []
        for page in Self.pages {
            for block in try Self.blocks(of: page) {
                #expect(!block.steps.isEmpty, "\(block): a command block with no command")
                if case .notRun(let reason) = block.fixture {
                    excluded.append("\(block): \(reason)")
                    continue
                }
                running += 1
                for step in block.steps {
                    if let reason = step.notRun { excluded.append("\(block.file):\(step.line): \(reason)") } else { commands += 1 }
                }
            }
        }
        print("doc blocks: \(running) run (\(commands) commands); \(excluded.count) blocks or commands not run:\n" + excluded.joined(separator: "\n"))
        // A floor, so a parser change that silently drops blocks fails (86 commands when written).
        #expect(running >= 13 && commands >= 80, "\(running) blocks, \(commands) commands run")
    }

    // MARK: The parser

    @Test func parserReadsTheConvention() throws {
        let page = """
            ```console
            $ ubiq a
            one

            $ ubiq b
            ```
            <!-- doc-test: continues masked;
                 except ubiq slow: takes minutes -->
            ```sh
            ubiq slow --all        # the slow one
            ubiq fails             # error: no key …
            ubiq long \\
              --flag
            ```
            <!-- doc-test: not run: needs two machines -->
            ```
            $ ubiq far
            ```
            ```swift
            let x = 1
            ```
            """
        let blocks = try DocBlock.parse(page, file: "P.md")
        #expect(blocks.count == 3)
        #expect(blocks[0].kind == .transcript && blocks[0].fixture == .fresh && !blocks[0].masked)
        #expect(blocks[0].steps.map(\.command) == ["ubiq a", "ubiq b"] && blocks[0].steps[0].output == ["one"])
        #expect(blocks[0].steps[1].line == 5)
        #expect(blocks[1].kind == .script && blocks[1].fixture == .continues && blocks[1].masked)
        #expect(blocks[1].steps.count == 3)
        #expect(blocks[1].steps[0].notRun == "takes minutes" && blocks[1].steps[1].notRun == nil)
        #expect(blocks[1].steps[1].expectedError == "no key")
        #expect(blocks[1].steps[2].command == "ubiq long \\\n  --flag")
        #expect(blocks[2].fixture == .notRun("needs two machines") && blocks[2].line == 16)
        #expect(throws: DocBlock.MarkerError.self) { try DocBlock.parse("<!-- doc-test: frsh -->\n```sh\nubiq\n```", file: "P.md") }
        #expect(throws: DocBlock.MarkerError.self) { try DocBlock.parse("<!-- doc-test: not run: -->\n```sh\nubiq\n```", file: "P.md") }
        #expect(throws: DocBlock.MarkerError.self) {
            try DocBlock.parse("<!-- doc-test: fresh; except ubiq zzz: why -->\n```sh\nubiq\n```", file: "P.md")
        }
    }

    /// A transcript that shows the wrong output fails at the line that differs, and a script
    /// command that fails fails its block: the harness can fail.
    @Test func aWrongDocFailsAtTheLineThatDiffers() throws {
        let page = """
            ```console
            $ mkdir -p /tmp/a && cd /tmp/a && printf 'one\\ntwo\\n'
            one
            three
            ```
            ```sh
            ubiq plist lint missing.plist
            ```
            """
        let blocks = try DocBlock.parse(page, file: "P.md")
        let runner = try DocBlockRunner(repository: Self.repository)
        let transcript = try #require(blocks.first?.steps.first)
        let failure = try #require(Self.check(transcript, of: blocks[0], try runner.run(transcript.command)))
        #expect(failure.hasPrefix("P.md:4: under $ mkdir"), "\(failure)")
        #expect(failure.contains("the doc shows: three") && failure.contains("printed:       two"), "\(failure)")
        // The working directory carried over, and /tmp/ is the runner's own.
        #expect(try runner.run("pwd").output == "/tmp/a\n")
        let script = try #require(blocks.last?.steps.first)
        let scriptFailure = try #require(Self.check(script, of: blocks[1], try runner.run(script.command)))
        #expect(scriptFailure.hasPrefix("P.md:7: $ ubiq plist lint missing.plist\n  exit 1"), "\(scriptFailure)")
    }

    @Test func maskingKeepsTheStableParts() {
        let line = "baseline by ann~2e58f8fa-d728-4b3e-aa17-bc083e1de529 at 2026-11-24T02:41:21Z, 3 s old, 3367 bytes, stamp 0001795488081560"
        #expect(DocBlockRunner.mask(line) == "baseline by ann~<UUID> at <DATE>, <N> s old, <N> bytes, stamp <N>")
    }
}
