import ArgumentParser
import Foundation
import Ubiquity

struct BaselineCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "baseline",
        abstract: "Show or roll the container's baseline.",
        discussion: "Example: ubiq baseline show --device ./phone",
        subcommands: [BaselineShowCommand.self, BaselineRollCommand.self])
}

struct BaselineShowCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Print the current baseline: author, knowledge, age and size.",
        discussion: "Example: ubiq baseline show --json --device ./phone")

    @OptionGroup var global: GlobalOptions
    @Flag(help: "Print JSON.") var json = false

    func run() throws {
        try global.withReadablePeer { peer in
            guard let metadata = peer.baselineMetadata, let location = peer.location else {
                Console.out(json ? "null" : "no baseline")
                return
            }
            if json { Console.out(metadata.jsonValue.text()); return }
            let size = (try? FileManager.default.attributesOfItem(atPath: location.baselinePath)[.size] as? NSNumber)?.intValue ?? 0
            let age = String(format: "%.0f", Date().timeIntervalSince1970 - metadata.created)
            Console.out("baseline by \(metadata.author), \(age) s old, \(size) bytes")
            Console.out("  knowledge: \(metadata.knowledge)")
            Console.out("  replaced:  \(metadata.previousKnowledge.description.isEmpty ? "(none)" : metadata.previousKnowledge.description)")
        }
    }
}

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

struct GCCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gc",
        abstract: "Delete this peer's own logs that the baseline covers and every peer has passed.",
        discussion: "Example: ubiq gc --grace 86400 --device ./phone")

    @OptionGroup var global: GlobalOptions
    @Option(help: "Seconds after which a covered log goes even if a receipt lags (default 7 days).") var grace: Double?
    @Flag(help: "Print JSON.") var json = false

    func run() throws {
        try global.withPeer { peer in
            var policy = BaselinePolicy.apple
            if let grace { policy.gracePeriod = grace }
            let report = peer.collectGarbage(policy: policy)
            Console.out(json ? report.jsonValue.text() : report.line)
        }
    }
}
