import ArgumentParser
import Ubiquity

struct ModelShowCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Show a model: entities, attributes and relationships with their types, and the model hash.",
        discussion: """
            PATH is a model in any form (default: --model, else the built-in Notes model). For an \
            .xcdatamodeld the current version is shown and the versions are listed; --version picks another.

            Example: ubiq model show MyApp.xcdatamodeld --version 'MyApp 2' --json
            """)

    @OptionGroup var global: GlobalOptions

    @Argument(help: ArgumentHelp("The model to show.", valueName: "path"))
    var path: String?

    @Option(name: .customLong("version"), help: ArgumentHelp("A version of an .xcdatamodeld.", valueName: "name"))
    var modelVersion: String?

    @Flag(help: "Print {name, hash, versions?, currentVersion?, entities: [...]} (Docs/CLI.md).")
    var json = false

    func run() throws {
        let location = path.map(GlobalOptions.absolute) ?? global.model.map(GlobalOptions.absolute)
        let model = try location.map { try ObjectModel.load(contentsOf: $0, version: modelVersion) } ?? .notes
        if location == nil, modelVersion != nil { throw CLIError("--version needs an .xcdatamodeld") }
        let bundle = try location.flatMap { $0.hasSuffix(".xcdatamodeld") || $0.hasSuffix(".xcdatamodeld/") ? try XcodeModelBundle(path: $0) : nil }
        if json {
            var value = model.jsonValue
            if let bundle, case var .object(fields) = value {
                fields["versions"] = .array(bundle.versions.map(JSONValue.string))
                fields["currentVersion"] = .string(bundle.currentVersion)
                value = .object(fields)
            }
            return Console.out(value.text())
        }
        var text = model.textDescription
        if let bundle {
            text += "\nversions: " + bundle.versions.map { $0 == bundle.currentVersion ? "\($0) (current)" : $0 }.joined(separator: ", ")
        }
        Console.out(text)
    }
}
