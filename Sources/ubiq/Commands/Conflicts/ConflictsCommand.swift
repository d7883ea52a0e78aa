import ArgumentParser
import Ubiquity

struct ConflictsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "conflicts",
        abstract: "List the conflict history: every concurrent overwrite, with winner and loser.",
        discussion: "Example: ubiq conflicts --json --device ./phone",
        subcommands: [ConflictsListCommand.self, ConflictsRestoreCommand.self],
        defaultSubcommand: ConflictsListCommand.self)
}
