import ArgumentParser
import UbiquitySimulation

struct ProtocolCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "protocol",
        abstract: "Check the baseline protocol exhaustively on a small model (Docs/Lifecycle.md, \"The rule\").",
        subcommands: [ProtocolCheckCommand.self])
}
