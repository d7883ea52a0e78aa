import ArgumentParser
import Foundation
import Ubiquity

struct ModelCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "model",
        abstract: "Show, compare and check models; write the current model as a model file.",
        discussion: """
            Models are Xcode's own files (an .xcdatamodeld bundle, one .xcdatamodel version, or its \
            contents file) or a plist model file; every command takes them with --model.

            Examples: ubiq model show MyApp.xcdatamodeld --json
                      ubiq model diff 'MyApp.xcdatamodeld/MyApp.xcdatamodel' 'MyApp.xcdatamodeld/MyApp 2.xcdatamodel'
                      ubiq model check --icloud MyApp.xcdatamodeld
                      ubiq model write --output MyModel.plist
                      ubiq model migrate --to 'MyApp.xcdatamodeld' --device ./phone
            """,
        subcommands: [ModelWriteCommand.self, ModelShowCommand.self, ModelDiffCommand.self, ModelCheckCommand.self, ModelMigrateCommand.self],
        defaultSubcommand: ModelWriteCommand.self)
}

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

struct ModelDiffCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "diff",
        abstract: "What changed from one model to another, and whether the mapping can be inferred.",
        discussion: """
            Each change is marked 'inferred' (Core Data's lightweight migration infers it), 'needs a \
            mapping model' (with why), or 'no migration' (the model hash does not change for it). \
            Exits 1 when some change needs a mapping model.

            Example: ubiq model diff 'MyApp.xcdatamodeld/MyApp.xcdatamodel' 'MyApp.xcdatamodeld/MyApp 2.xcdatamodel'
            """)

    // Taken like every command's, though a diff reads no device or cloud.
    @OptionGroup var global: GlobalOptions

    @Argument(help: ArgumentHelp("The older model.", valueName: "old"))
    var old: String

    @Argument(help: ArgumentHelp("The newer model.", valueName: "new"))
    var new: String

    @Flag(help: "Print {sameHash, canInferMapping, changes: [{kind, entity, property, detail, mapping, reason?}]}.")
    var json = false

    func run() throws {
        let diff = ModelDiff(from: try ObjectModel.load(contentsOf: GlobalOptions.absolute(old)),
                             to: try ObjectModel.load(contentsOf: GlobalOptions.absolute(new)))
        Console.out(json ? diff.jsonValue.text() : diff.textDescription)
        if !diff.canInferMapping { throw ExitCode(1) }
    }
}

struct ModelCheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Check a model against Apple's iOS 7 iCloud Core Data rules.",
        discussion: """
            Lists what iCloud Core Data would refuse — ordered relationships, changes from an older \
            version of an .xcdatamodeld that only a mapping model could migrate, a content name (--content) \
            with periods — and what it was known to break. Exits 1 when something would be refused.

            Example: ubiq model check --icloud MyApp.xcdatamodeld --content MyNotes
            """)

    @OptionGroup var global: GlobalOptions

    @Flag(help: "Check against iOS 7 iCloud Core Data (the only check there is).")
    var icloud = false

    @Argument(help: ArgumentHelp("The model to check (default: --model, else the built-in Notes model).", valueName: "path"))
    var path: String?

    @Flag(help: "Print {accepted, findings: [{severity, subject, message}]}.")
    var json = false

    func run() throws {
        guard icloud else { throw CLIError("say what to check the model against: --icloud") }
        let location = path.map(GlobalOptions.absolute) ?? global.model.map(GlobalOptions.absolute)
        var model = ObjectModel.notes
        var older: [ObjectModel] = []
        if let location {
            model = try ObjectModel.load(contentsOf: location)
            if let bundle = try? XcodeModelBundle(path: location), location.hasSuffix(".xcdatamodeld") || location.hasSuffix(".xcdatamodeld/") {
                older = try bundle.versions.filter { $0 != bundle.currentVersion }.map { try bundle.model(version: $0) }
            }
        }
        let check = ICloudModelCheck(model: model, olderVersions: older, contentName: global.content)
        Console.out(json ? check.jsonValue.text() : check.textDescription)
        if !check.isAccepted { throw ExitCode(1) }
    }
}
