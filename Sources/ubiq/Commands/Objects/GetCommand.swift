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
        let (value, externalData) = try global.withReadablePeer { peer -> (AttributeValue?, ExternalDataFolder) in
            let entity = try peer.store.model.entity(named: id.entity)
            guard entity.attribute(attribute) != nil else { throw ModelError.unknownProperty(entity: id.entity, property: attribute) }
            guard let snapshot = try peer.store.snapshot(of: id) else { throw StoreError.objectNotFound(id) }
            return (snapshot.values[attribute] ?? nil, peer.store.externalData)
        }
        if json { return Console.out(value.jsonValue.text()) }
        guard raw else { return Console.out(ObjectText.text(value)) }
        guard let value else { throw CLIError("\(id).\(attribute) has no value") }
        switch value {
        case let .binary(bytes): Console.outBytes(bytes)
        case let .externalBinary(reference):
            // Streamed a chunk at a time: a 200 MB value never sits whole in memory.
            do { try externalData.read(reference) { Console.outBytes($0) } } catch let error as ExternalDataError { throw CLIError("\(id).\(attribute): \(error)") }
        case let .string(text): Console.outBytes(Array(text.utf8))
        default: Console.outBytes(Array(value.description.utf8))
        }
    }
}
