import ArgumentParser
import Foundation
import Ubiquity

struct GetCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "get",
        abstract: "Print one attribute value of an object.",
        discussion: """
            Prints the value as 'fetch' shows it; --json as 'fetch --json' does; --raw writes its bytes \
            and nothing else: binary and transformable data as they are (an external value is streamed from its \
            file), a string as UTF-8 (U+0000 \
            included), any other value as its text. An absent value is 'nil', JSON null, or an error with --raw.

            Example: ubiq get Note/groceries title --raw > title.txt
            """)

    @OptionGroup var global: GlobalOptions

    @Argument(help: "The object's global ID, e.g. Note/groceries.")
    var id: String

    @Argument(help: "The attribute.")
    var attribute: String

    @Flag(help: "Write the value's bytes to standard output, without a line break.")
    var raw = false

    @Flag(help: "Print the value as JSON.")
    var json = false

    func run() throws {
        if raw && json { throw CLIError("--raw and --json exclude each other") }
        let id = try GlobalID(id)
        let read = try global.withReadablePeer { peer in try AttributeValueRead(attribute, of: id, in: peer) }
        if json { return Console.out(read.value.jsonValue.text()) }
        guard raw else { return Console.out(ObjectText.text(read.value)) }
        try read.writeRaw { Console.outBytes($0) }
    }
}
