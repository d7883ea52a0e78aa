import ArgumentParser
import Foundation
import Ubiquity
import UbiquitySimulation

struct ScenarioCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scenario",
        abstract: "Run sync scenarios on emulated devices: accounts, churn, first launch, offline edits, faults.",
        discussion: """
            Each device keeps a mirror of the cloud that an emulated iCloud daemon syncs under a \
            seeded fault plan; invariants are checked after every step. The format and the built-in \
            scenarios: Docs/Scenarios.md.
            """,
        subcommands: [ScenarioListCommand.self, ScenarioRunCommand.self, ScenarioFuzzCommand.self, ScenarioReplayCommand.self, ScenarioDeviceCommand.self])

    /// This executable's absolute path (device processes are started from it).
    static var executable: String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    }
}
