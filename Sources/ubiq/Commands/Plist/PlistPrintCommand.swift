import ArgumentParser
import Ubiquity

struct PlistPrintCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "print",
        abstract: "Print each FILE's contents as a readable, typed tree, like plutil -p.",
        discussion: """
            Strings are quoted, reals show a point (12.0), dates their exact text, data its \
            length and bytes, keyed-archive UIDs as UID(n). plutil's spelling: ubiq plist -p FILE

            Example: ubiq plist print Info.plist
            """)

    @Argument(help: ArgumentHelp("The files ('-' for standard input).", valueName: "file"))
    var files: [String] = []

    func validate() throws {
        if files.isEmpty { throw ValidationError("give a FILE to print") }
    }

    func run() throws { try Self.print(files) }

    static func print(_ files: [String]) throws {
        var io = PlistFiles()
        for file in files {
            guard let document = io.read(file) else { continue }
            Console.outBytes(Array(document.rendered.utf8))
        }
        try io.finish()
    }
}
