import Foundation
import Ubiquity
/// Scenarios drawn from a seed, for property-based testing (`ubiq scenario fuzz`): two to four
/// devices, sometimes on a second account or with a wrong clock, random faults, and a few
/// hundred random steps — edits, syncs, quits and launches, rebuilds, offline windows, account
/// switches and sign-outs, baseline rolls and content removals — then everybody back on the
/// default account, settled and converged. With a model file (`fuzz --model`), four devices
/// open their stores with it and the edits are random changes over its entities (`mutate`).
public enum RandomScenario {
    /// Random steps per scenario unless told otherwise.
    public static let defaultSteps = 250

    /// The scenario's text (so the parser is exercised too); `model`: a model file the
    /// devices open their stores with, instead of the built-in Notes model.
    public static func text(seed: UInt64, steps: Int = defaultSteps, removals: Bool = true, baselines: Bool = true, model: String? = nil) -> String {
        var random = SeededGenerator(seed: seed)
        func pick<T>(_ items: [T]) -> T { items[Int.random(in: 0..<items.count, using: &random)] }
        // Four devices on one account insert the pooled constrained values at one instant.
        let devices = (1...(model == nil ? Int.random(in: 2...4, using: &random) : 4)).map { "d\($0)" }
        var lines = ["scenario random-\(seed)", "about A random scenario drawn from seed \(seed).", "seed \(seed)"]
        if let model { lines.append("model \"" + model.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\"") }
        lines.append("devices \(devices.joined(separator: " "))")
        if model == nil {
            for device in devices where Int.random(in: 0..<4, using: &random) == 0 { lines.append("device \(device) account other") }
        }
        if Bool.random(using: &random) { lines.append("device \(pick(devices)) skew \(pick(["-3h", "+2h", "-45m", "+10m"]))") }
        let threshold = pick([15, 40, 1000])
        lines.append("baseline threshold=\(baselines ? threshold : 100_000) grace=\(pick(["1h", "1d"]))")
        lines.append(faults(using: &random))
        if model == nil {
            lines += ["all launch", "wait 2m", "random \(steps) keys=40", "  40 ? edit Note"]
        } else {
            // Once on the fallback stores, once on the account's: collisions on purpose, migrated and imported.
            lines += ["all launch", "all policy object-trump", "all mutate pooled", "wait 2m", "all mutate pooled",
                      "random \(steps) keys=40", "  40 ? mutate", "  2 ? mutate pooled"]
        }
        lines += ["  6 ? sync", "  3 ? quit", "  4 ? launch", "  1 ? launch rebuild", "  2 ? offline", "  3 ? online",
                  "  2 ? sign-in other", "  2 ? sign-in default", "  1 ? sign-out", "  8 wait 5s..30m"]
        if baselines { lines.append("  1 ? roll-baseline") }
        if removals { lines.append("  1 ? remove-content") }
        lines += ["end", "all online", "all sign-in default", "all launch"]
        // Content removals drawn above may have wiped the earlier collisions: one more at the end.
        if model != nil { lines.append("all mutate pooled") }
        lines += ["settle", "expect converged"]
        return lines.joined(separator: "\n")
    }

    /// The `faults` line: a delay, and sometimes drops, truncations, duplicates, reordering and offline windows.
    private static func faults(using random: inout SeededGenerator) -> String {
        func pick<T>(_ items: [T]) -> T { items[Int.random(in: 0..<items.count, using: &random)] }
        var faults = ["delay=\(pick(["0s", "1s..20s", "1s..5m"]))"]
        if Bool.random(using: &random) { faults.append("drop=\(pick([0.05, 0.2]))") }
        if Bool.random(using: &random) { faults.append("truncate=\(pick([0.02, 0.1]))") }
        if Bool.random(using: &random) { faults.append("duplicate=\(pick([0.02, 0.1]))") }
        if Bool.random(using: &random) { faults.append("reorder") }
        if Bool.random(using: &random) { faults.append("offline=0.01/1m..1h") }
        return "faults " + faults.joined(separator: " ")
    }

    /// The scenario of `text`; `model` as there, and `modelArgument` the file as the replay
    /// command names it (default: `model`).
    public static func scenario(seed: UInt64, steps: Int = defaultSteps, removals: Bool = true, baselines: Bool = true,
                                model: String? = nil, modelArgument: String? = nil) throws(ScenarioError) -> Scenario {
        var scenario = try ScenarioParser.parse(text(seed: seed, steps: steps, removals: removals, baselines: baselines, model: model),
                                                source: "random-\(seed).scenario")
        scenario.reference = "random-\(seed)"
        // `fuzz` always draws removals and baselines; without them only the library replays it.
        let modelOption = (modelArgument ?? model).map { " --model \(shellWord($0))" } ?? ""
        scenario.replayCommand = removals && baselines
            ? "ubiq scenario fuzz --seeds \(seed)" + (steps == defaultSteps ? "" : " --steps \(steps)") + modelOption
            : "RandomScenario.scenario(seed: \(seed), steps: \(steps), removals: \(removals), baselines: \(baselines)) with"
        return scenario
    }

    /// What `fuzz --model` says about `model` before it runs: an attribute whose pattern no
    /// drawn value meets, and what is written instead, one line each.
    public static func notes(on model: ObjectModel) -> [String] { ModelValues.notes(for: model) }

    /// `text` as one shell word: quoted when it holds anything but letters, digits and `/._-+`.
    public static func shellWord(_ text: String) -> String {
        let plain = !text.isEmpty && text.unicodeScalars.allSatisfy { $0.properties.isAlphabetic || ("0"..."9").contains($0) || "/._-+".unicodeScalars.contains($0) }
        return plain ? text : "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
