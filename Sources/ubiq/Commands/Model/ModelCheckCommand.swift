import ArgumentParser
import Ubiquity

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
