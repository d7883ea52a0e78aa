import ArgumentParser
import Ubiquity

struct LogsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "logs",
        abstract: "List the container's transaction logs, or show one decoded.",
        discussion: "Example: ubiq logs show <peer>/Notes/<hash>/0000000001-<UUID>.1.cdt --device ./phone",
        subcommands: [LogsListCommand.self, LogsShowCommand.self],
        defaultSubcommand: LogsListCommand.self)
}
