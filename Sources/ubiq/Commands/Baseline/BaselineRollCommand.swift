import ArgumentParser
import Ubiquity

struct BaselineRollCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "roll",
        abstract: "Sync, then roll a baseline if the thresholds say so (or always with --force).",
        discussion: "Example: ubiq baseline roll --force --device ./phone")

    @OptionGroup var global: GlobalOptions
    @Flag(help: "Roll even below the thresholds (still only when this peer has imported every log).") var force = false
    @Flag(help: "Print JSON.") var json = false

    func run() throws {
        // Sync without the automatic roll, so the decision printed is this command's.
        let decision = try global.withPeer(adjust: { $0.baselinePolicy = nil }) { peer in
            _ = try peer.sync()
            return try peer.rollBaseline(force: force)
        }
        if json {
            Console.out(decision.jsonValue.text())
        } else if case .rolled = decision {
            Console.out("rolled: \(decision.reason)")
        } else {
            Console.out("not rolled: \(decision.reason)")
        }
    }
}
