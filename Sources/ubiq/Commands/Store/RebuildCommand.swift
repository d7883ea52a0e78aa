import ArgumentParser
import Ubiquity

struct RebuildCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rebuild",
        abstract: "Delete this device's store of the account and rebuild it from the container.",
        discussion: """
            The baseline and the logs rebuild it; transaction numbers continue where the container \
            says this peer stopped, so none is reused. A store made for another model version is \
            never replaced: migrate it first ('ubiq model migrate --to MODEL'). When the container \
            holds data of other versions only, rebuild says so.
            Example: ubiq rebuild --device ./phone
            """)

    @OptionGroup var global: GlobalOptions

    func run() throws {
        let report = try StoreRebuild.run(configuration: try global.unlockedConfiguration())
        Console.out("rebuilt: \(report.reason); knowledge \(report.knowledge)")
        // Say so when the data is there, but under another model version.
        if !report.otherVersionsWithData.isEmpty {
            Console.out("warning: this model version (\(global.model ?? "the built-in Notes model")) has no data in the container, but other versions do (\(report.otherVersionsWithData.joined(separator: ", "))): rebuild with the model they use, or migrate those peers")
        }
    }
}
