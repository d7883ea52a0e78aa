import ArgumentParser
import Foundation
import UbiquitySimulation

struct ProtocolCheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Explore every interleaving of saves, syncs, rolls, collections and file-sync deliveries; exit 1 on a violation.",
        discussion: """
            Peers run on machines whose clouds a file-sync engine keeps in step: it delivers in any \
            order, deletes late, and makes a conflict copy when two machines wrote one path. Every \
            state is checked for a lost transaction, every quiescent state for convergence.

            Examples:
              ubiq protocol check                                  # 3 peers on 2 machines, one a newcomer
              ubiq protocol check --placement 0,1,2 --saves 3      # 3 machines
              ubiq protocol check --rules legacy                   # the rules before the fix: finds the loss
            """)

    @Option(help: ArgumentHelp("The machine of each peer, comma-separated.", valueName: "m,m,…")) var placement = "0,0,1"
    @Option(help: ArgumentHelp("Peers that start later with an empty store, comma-separated.", valueName: "p,…")) var late = "2"
    @Option(help: "Saves across all peers.") var saves = 2
    @Option(help: "Baselines rolled by choice, across all peers.") var rolls = 2
    @Option(name: .customLong("forced-rolls"), help: "Baselines rolled because the rules require it.") var forcedRolls = 2
    @Option(help: ArgumentHelp("current (BaselineProtocol) or legacy (the rules before the fix).", valueName: "rules")) var rules = "current"
    @Option(name: .customLong("max-states"), help: "Stop after this many states (the result is then incomplete).") var maxStates = 2_000_000
    @Option(help: ArgumentHelp("Random walks instead of every interleaving (for larger configurations; proves nothing when it finds nothing).", valueName: "n"))
    var walks: Int?
    @Option(help: "The seed of the random walks.") var seed: UInt64 = 1
    @Flag(name: .customLong("depth-first"), help: "Explore depth first: deep counterexamples sooner, not the shortest.") var depthFirst = false

    func run() throws {
        func numbers(_ text: String, _ name: String) throws -> [Int] {
            guard !text.isEmpty else { return [] }
            return try text.split(separator: ",").map {
                guard let value = Int($0.trimmingCharacters(in: .whitespaces)), value >= 0 else {
                    throw ValidationError("--\(name) takes whole numbers separated by commas, not '\(text)'")
                }
                return value
            }
        }
        let placement = try numbers(placement, "placement")
        guard (1...6).contains(placement.count) else { throw ValidationError("--placement names 1 to 6 peers") }
        let late = Set(try numbers(late, "late"))
        guard late.allSatisfy({ $0 < placement.count }) else { throw ValidationError("--late names a peer that --placement does not have") }
        guard let rules = ProtocolRules(rawValue: rules) else { throw ValidationError("--rules is current or legacy, not '\(rules)'") }
        for (name, value) in [("saves", saves), ("rolls", rolls), ("forced-rolls", forcedRolls)] where !(0...9).contains(value) {
            throw ValidationError("--\(name) takes 0 to 9, not \(value)")
        }
        var explorer = ProtocolExplorer(ProtocolModelConfiguration(
            placement: placement, latecomers: late, saves: saves, rolls: rolls, forcedRolls: forcedRolls, rules: rules))
        explorer.maxStates = maxStates
        explorer.depthFirst = depthFirst
        let result = walks.map { explorer.walk(walks: $0, seed: seed) } ?? explorer.run()
        print(result.summary)
        if let violation = result.violation { print(violation) }
        if !result.passed { throw ExitCode(1) }
    }
}
