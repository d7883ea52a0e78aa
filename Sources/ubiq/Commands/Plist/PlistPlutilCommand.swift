import ArgumentParser

/// plutil's spellings of the `ubiq plist` commands: `-lint` (also what a bare FILE gets, as
/// in plutil), `-p`, `-convert FMT [-o OUT]`. Hidden: the default subcommand of `plist`.
/// (The flags cannot live on `plist` itself: a command's own positional arguments would
/// swallow the subcommand names.)
struct PlistPlutilCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plutil",
        abstract: "plutil's spellings: -lint, -p, -convert xml1|binary1|json [-o OUT].",
        shouldDisplay: false)

    @Flag(name: .customLong("lint", withSingleDash: true), help: "plutil's -lint: check FILE… (the default).")
    var lint = false

    @Flag(name: .customShort("p"), help: "plutil's -p: print FILE.")
    var printTree = false

    @Option(name: .customLong("convert", withSingleDash: true),
            help: ArgumentHelp("plutil's -convert: rewrite FILE… as xml1, binary1 or json.", valueName: "format"))
    var convert: PlistTargetFormat?

    @Option(name: .customShort("o"), help: ArgumentHelp("With -convert: write here ('-' for standard output).", valueName: "out"))
    var output: String?

    @Argument(help: ArgumentHelp("The files ('-' for standard input).", valueName: "file"))
    var files: [String] = []

    func validate() throws {
        let modes = [lint, printTree, convert != nil].filter { $0 }.count
        if modes > 1 { throw ValidationError("give one of -lint, -p and -convert") }
        if files.isEmpty {
            throw ValidationError("give a command (lint, print, convert) or plutil's -lint, -p, -convert, and a FILE")
        }
        if output != nil && convert == nil { throw ValidationError("-o applies to -convert only") }
        if convert != nil { try PlistConvertCommand.check(files: files, output: output) }
    }

    func run() throws {
        if let convert {
            try PlistConvertCommand.convert(files, to: convert.format, style: .typed, output: output)
        } else if printTree {
            try PlistPrintCommand.print(files)
        } else {
            try PlistLintCommand.lint(files)
        }
    }
}
