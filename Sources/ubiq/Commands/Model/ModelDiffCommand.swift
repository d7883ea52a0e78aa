import ArgumentParser
import Ubiquity

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
