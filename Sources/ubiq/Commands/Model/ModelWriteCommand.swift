import ArgumentParser
import Foundation
import Ubiquity

struct ModelWriteCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "write",
        abstract: "Write the current model (--model FILE or the built-in Notes model) as a plist model file (the default).",
        discussion: """
            Start a model of your own from the built-in one, then pass it to every command with --model.

            Example: ubiq model write --output MyModel.plist && ubiq fetch Note --model MyModel.plist
            """)

    @OptionGroup var global: GlobalOptions

    @Option(help: ArgumentHelp("Write to this file instead of standard output.", valueName: "file"))
    var output: String?

    @Flag(help: "The plist format of the model file (XML is easier to read and edit).")
    var format: ModelFileFormat = .xml

    func run() throws {
        let bytes = try global.loadModel().fileContents(format: format == .xml ? .xml : .binary)
        guard let output else { return Console.outBytes(bytes) }
        let path = GlobalOptions.absolute(output)
        guard FileManager.default.createFile(atPath: path, contents: Data(bytes)) else {
            throw CLIError("cannot write the model file \(path)")
        }
    }
}

/// `--xml` or `--binary`.
enum ModelFileFormat: EnumerableFlag {
    case xml, binary
}
