import ArgumentParser
import Ubiquity

struct BaselineCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "baseline",
        abstract: "Show or roll the container's baseline.",
        discussion: "Example: ubiq baseline show --device ./phone",
        subcommands: [BaselineShowCommand.self, BaselineRollCommand.self])
}
