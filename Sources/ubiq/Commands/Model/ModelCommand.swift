import ArgumentParser
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
