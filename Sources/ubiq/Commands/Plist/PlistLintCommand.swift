import ArgumentParser
import Ubiquity

struct PlistLintCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lint",
        abstract: "Check that each FILE is a readable property list (binary, XML or JSON).",
        discussion: """
            Prints 'FILE: OK' for each good file and 'FILE: <reason>' on stderr for each bad one; \
            exits 1 when any file fails. plutil's spelling: ubiq plist -lint FILE…

            Example: ubiq plist lint Info.plist
            """)

    @Argument(help: ArgumentHelp("The files ('-' for standard input).", valueName: "file"))
    var files: [String] = []

    func validate() throws {
        if files.isEmpty { throw ValidationError("give at least one FILE to lint") }
    }

    func run() throws { try Self.lint(files) }

    static func lint(_ files: [String]) throws {
        var io = PlistFiles()
        for file in files where io.read(file) != nil {
            Console.out("\(file): OK")
        }
        try io.finish()
    }
}
