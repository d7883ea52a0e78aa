import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Where a passphrase comes from: an environment variable, a file, or a prompt on the terminal
/// (without echo). Never from the command line, where other users see it in the process list.
struct PassphraseSource {
    /// The environment variable read first (`UBIQUITY_PASSPHRASE`, `UBIQUITY_NEW_PASSPHRASE`).
    let variable: String
    /// A file whose first line is the passphrase.
    let file: String?
    /// What the prompt says.
    let prompt: String
    /// Ask twice on a terminal (a new passphrase mistyped would lock everyone out).
    let confirm: Bool

    func read() throws -> String {
        if let given = try readIfGiven() { return given }
        guard Self.canPrompt else {
            throw CLIError("no passphrase: set \(variable), give a file with --\(variable == "UBIQUITY_NEW_PASSPHRASE" ? "new-" : "")passphrase-file, or run on a terminal")
        }
        let first = try Self.prompt(prompt)
        if confirm, try Self.prompt("Again: ") != first { throw CLIError("the two passphrases differ; nothing was changed") }
        return first
    }

    /// The passphrase from the variable or the file, or `nil` when neither gives one (nothing is asked).
    func readIfGiven() throws -> String? {
        if let value = ProcessInfo.processInfo.environment[variable], !value.isEmpty { return value }
        guard let file else { return nil }
        let path = GlobalOptions.absolute(file)
        guard let data = FileManager.default.contents(atPath: path) else { throw CLIError("cannot read the passphrase file \(path)") }
        let line = String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).first.map(String.init) ?? ""
        guard !line.isEmpty else { throw CLIError("the passphrase file \(path) is empty") }
        return line.hasSuffix("\r") ? String(line.dropLast()) : line
    }

    /// Whether a passphrase can be asked on the terminal.
    static var canPrompt: Bool { isatty(STDIN_FILENO) == 1 }

    /// Reads one line from the terminal with echo off.
    private static func prompt(_ text: String) throws -> String {
        FileHandle.standardError.write(Data(text.utf8))
        var saved = termios()
        let hasTerminal = tcgetattr(STDIN_FILENO, &saved) == 0
        if hasTerminal {
            var quiet = saved
            quiet.c_lflag &= ~tcflag_t(ECHO)
            tcsetattr(STDIN_FILENO, TCSAFLUSH, &quiet)
        }
        defer {
            if hasTerminal { tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved) }
            FileHandle.standardError.write(Data("\n".utf8))
        }
        guard let line = Swift.readLine(strippingNewline: true), !line.isEmpty else { throw CLIError("no passphrase given") }
        return line
    }
}
