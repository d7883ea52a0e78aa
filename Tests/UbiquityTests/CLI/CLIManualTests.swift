import Foundation
import Testing
import Ubiquity

/// `scripts/install.sh PREFIX`: the release binary, the man page (argument-parser's
/// generate-manual over the command tree) and the shell completions, installed into a folder.
@Suite("CLI install: the binary, its man page and completions")
struct CLIManualTests {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().path

    struct Run {
        let status: Int32
        let stdout: String
        let stderr: String
    }

    /// Runs `executable` with `arguments`, waiting for it (a build of generate-manual may be part of it).
    func run(_ executable: String, _ arguments: [String], environment: [String: String] = [:]) throws -> Run {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let stdout = Pipe(), stderr = Pipe()
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        // Read both pipes to the end before waiting, so a chatty child never blocks on a full pipe.
        let errors = ReadAll(stderr.fileHandleForReading)
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Run(status: process.terminationStatus, stdout: String(decoding: output, as: UTF8.self), stderr: errors.text())
    }

    /// A pipe read on another thread.
    final class ReadAll: @unchecked Sendable {
        private var data = Data()
        private let done = DispatchSemaphore(value: 0)
        init(_ handle: FileHandle) {
            Thread.detachNewThread { [self] in
                data = handle.readDataToEndOfFile()
                done.signal()
            }
        }
        func text() -> String {
            done.wait()
            return String(decoding: data, as: UTF8.self)
        }
    }

    /// Every command's name in `ubiq --experimental-dump-help`, depth first (the root excluded).
    func commandNames(_ command: [String: Any]) -> [String] {
        let subcommands = command["subcommands"] as? [[String: Any]] ?? []
        return subcommands.flatMap { [($0["commandName"] as? String) ?? "?"] + commandNames($0) }
    }

    /// argument-parser's generate-manual beside the built `ubiq`. The test cannot build it: a
    /// `swift build` started under `swift test` waits for the lock `swift test` holds on
    /// `.build` for ever. `.ci/run` builds it before the tests.
    static var generator: String? {
        guard let binary = try? UbiqBinary.path() else { return nil }
        let path = (binary as NSString).deletingLastPathComponent + "/generate-manual"
        return FileManager.default.isExecutableFile(atPath: path) ? path : nil
    }

    @Test(.enabled(if: generator != nil, "needs argument-parser's generate-manual built first: swift build --product generate-manual (.ci/run does)"))
    func installsTheManPageAndCompletions() throws {
        let binary = try UbiqBinary.path()
        let prefix = NSTemporaryDirectory() + "ubiq-man-test-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: prefix) }
        let environment = ["UBIQ": binary, "SOURCE_DATE_EPOCH": "1700000000", "GENERATE_MANUAL": try #require(Self.generator)]
        let install = try run("/bin/bash", [Self.packageRoot + "/scripts/install.sh", prefix], environment: environment)
        #expect(install.status == 0, "\(install.stderr)")
        let installed = prefix + "/bin/ubiq"
        let page = prefix + "/share/man/man1/ubiq.1"
        let bash = prefix + "/share/bash-completion/completions/ubiq"
        let zsh = prefix + "/share/zsh/site-functions/_ubiq"
        let fish = prefix + "/share/fish/vendor_completions.d/ubiq.fish"
        let lines = install.stdout.split(separator: "\n").map(String.init)
        #expect(Array(lines.prefix(5)) == [installed, page, bash, zsh, fish].map { "installed " + $0 })
        #expect(lines.dropFirst(5).allSatisfy { $0.hasPrefix("note: \(prefix)/bin is not on PATH") }, "\(lines)")

        // The binary: the one named, runnable from the prefix.
        #expect(FileManager.default.contentsEqual(atPath: installed, andPath: binary))
        let version = try run(installed, ["--version"])
        #expect(version.status == 0 && version.stdout.hasPrefix(UbiquityVersion.string), "\(version.stdout)")

        // The page: mdoc with NAME and SYNOPSIS, and an entry for every command of the tree.
        let manual = try String(contentsOfFile: page, encoding: .utf8)
        #expect(manual.contains(".Sh NAME\n.Nm ubiq\n") && manual.contains(".Sh SYNOPSIS\n"))
        #expect(manual.contains("\n.Dd November 14, 2023\n"), "SOURCE_DATE_EPOCH dates the page")
        #expect(!manual.contains("\n\n"), "blank lines became paragraph breaks")
        let dump = try run(binary, ["--experimental-dump-help"])
        let tree = try #require(try JSONSerialization.jsonObject(with: Data(dump.stdout.utf8)) as? [String: Any])
        let names = commandNames(try #require(tree["command"] as? [String: Any]))
        #expect(names.count > 50 && names.contains("update") && names.contains("convert"), "\(names)")
        let entries = Set(manual.split(separator: "\n").filter { $0.hasPrefix(".It Em ") }.map { String($0.dropFirst(7)) })
        for name in Set(names) { #expect(entries.contains(name), "the page has an entry for \(name)") }
        #expect(manual.contains("merge-policy"), "options are listed")

        // man renders it without a warning, where man exists.
        if FileManager.default.isExecutableFile(atPath: "/usr/bin/man") {
            let rendered = try run("/usr/bin/man", ["-l", page], environment: ["MANPAGER": "cat", "MANWIDTH": "100"])
            #expect(rendered.status == 0 && rendered.stderr.isEmpty, "\(rendered.stderr)")
            #expect(rendered.stdout.contains("SYNOPSIS") && rendered.stdout.contains("ubiq subcommand"), "\(rendered.stdout.prefix(400))")
        }

        // The completions: each shell's form, naming the commands and their options.
        let bashScript = try String(contentsOfFile: bash, encoding: .utf8)
        #expect(bashScript.contains("\ncomplete -o filenames -F _ubiq ubiq\n"), "\(bashScript.suffix(300))")
        #expect(bashScript.contains("--merge-policy"))
        #expect(try run("/bin/bash", ["-n", bash]).status == 0, "the bash completion parses")
        #expect(try String(contentsOfFile: zsh, encoding: .utf8).hasPrefix("#compdef ubiq"))
        let fishScript = try String(contentsOfFile: fish, encoding: .utf8)
        #expect(fishScript.contains("complete -c 'ubiq' -n") && fishScript.contains("-l 'merge-policy'"), "\(fishScript.prefix(300))")
    }

    @Test func withoutAPrefixTheScriptSaysHowToRunIt() throws {
        let result = try run("/bin/bash", [Self.packageRoot + "/scripts/install.sh"])
        #expect(result.status == 64)
        #expect(result.stderr.hasSuffix("install.sh PREFIX   (installs PREFIX/bin/ubiq, its man page and the shell completions)\n"), "\(result.stderr)")
    }
}
