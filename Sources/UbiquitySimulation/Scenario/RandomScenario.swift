import UbiquityBase
/// Scenarios drawn from a seed, for property-based testing (`ubiq scenario fuzz`): two to four
/// devices, sometimes on a second account or with a wrong clock, random faults, and a few
/// hundred random steps — edits, syncs, quits and launches, rebuilds, offline windows, account
/// switches and sign-outs, baseline rolls and content removals — then everybody back on the
/// default account, settled and converged.
public enum RandomScenario {
    /// Random steps per scenario unless told otherwise.
    public static let defaultSteps = 250

    /// The scenario's text (so the parser is exercised too).
    public static func text(seed: UInt64, steps: Int = defaultSteps, removals: Bool = true, baselines: Bool = true) -> String {
        var random = SeededGenerator(seed: seed)
        func pick<T>(_ items: [T]) -> T { items[Int.random(in: 0..<items.count, using: &random)] }
        let devices = (1...Int.random(in: 2...4, using: &random)).map { "d\($0)" }
        var lines = ["scenario random-\(seed)", "about A random scenario drawn from seed \(seed).", "seed \(seed)", "devices \(devices.joined(separator: " "))"]
        for device in devices where Int.random(in: 0..<4, using: &random) == 0 { lines.append("device \(device) account other") }
        if Bool.random(using: &random) { lines.append("device \(pick(devices)) skew \(pick(["-3h", "+2h", "-45m", "+10m"]))") }
        let threshold = pick([15, 40, 1000])
        lines.append("baseline threshold=\(baselines ? threshold : 100_000) grace=\(pick(["1h", "1d"]))")
        var faults = ["delay=\(pick(["0s", "1s..20s", "1s..5m"]))"]
        if Bool.random(using: &random) { faults.append("drop=\(pick([0.05, 0.2]))") }
        if Bool.random(using: &random) { faults.append("truncate=\(pick([0.02, 0.1]))") }
        if Bool.random(using: &random) { faults.append("duplicate=\(pick([0.02, 0.1]))") }
        if Bool.random(using: &random) { faults.append("reorder") }
        if Bool.random(using: &random) { faults.append("offline=0.01/1m..1h") }
        lines.append("faults " + faults.joined(separator: " "))
        lines += ["all launch", "wait 2m", "random \(steps) keys=40"]
        lines += ["  40 ? edit Note", "  6 ? sync", "  3 ? quit", "  4 ? launch", "  1 ? launch rebuild", "  2 ? offline", "  3 ? online",
                  "  2 ? sign-in other", "  2 ? sign-in default", "  1 ? sign-out", "  8 wait 5s..30m"]
        if baselines { lines.append("  1 ? roll-baseline") }
        if removals { lines.append("  1 ? remove-content") }
        lines += ["end", "all online", "all sign-in default", "all launch", "settle", "expect converged"]
        return lines.joined(separator: "\n")
    }

    public static func scenario(seed: UInt64, steps: Int = defaultSteps, removals: Bool = true, baselines: Bool = true) throws(ScenarioError) -> Scenario {
        var scenario = try ScenarioParser.parse(text(seed: seed, steps: steps, removals: removals, baselines: baselines), source: "random-\(seed).scenario")
        scenario.reference = "random-\(seed)"
        // `fuzz` always draws removals and baselines; without them only the library replays it.
        scenario.replayCommand = removals && baselines
            ? "ubiq scenario fuzz --seeds \(seed)" + (steps == defaultSteps ? "" : " --steps \(steps)")
            : "RandomScenario.scenario(seed: \(seed), steps: \(steps), removals: \(removals), baselines: \(baselines)) with"
        return scenario
    }
}
