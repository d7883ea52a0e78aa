/// What a scenario becomes on the file-sync transport, decided before anything starts: a
/// fault the engine cannot mean is ignored, with one warning; a step that only means something
/// with the emulated iCloud (a quota to fill) refuses the run with one line.
struct FileSyncPlan {
    /// Faults a file-sync engine has no counterpart for.
    static let ignoredFaults: Set<String> = ["duplicate"]

    var warnings: [String] = []

    /// Checks `scenario` (after `--peers` and `--steps`) with the `--faults` added on top.
    init(_ scenario: Scenario, extraFaults: [(key: String, value: String?)]) throws(ScenarioError) {
        var ignored: [String] = []
        func note(_ pairs: [(key: String, value: String?)]) {
            for (key, value) in pairs where Self.ignoredFaults.contains(key) {
                let text = key + (value.map { "=" + $0 } ?? "")
                if !ignored.contains(text) { ignored.append(text) }
            }
        }
        func note(_ plan: FaultPlan) { if plan.duplicateRate > 0 { note([("duplicate", String(plan.duplicateRate))]) } }
        note(scenario.faults)
        for device in scenario.devices { if let faults = device.faults { note(faults) } }
        note(extraFaults)
        try Self.walk(scenario.steps, source: scenario.source, faults: note)
        if !ignored.isEmpty {
            warnings.append("a file-sync engine never delivers a file twice: \(ignored.joined(separator: " ")) is ignored")
        }
    }

    /// Visits every step, inside `repeat` and `random` blocks too: hands `faults` lines to
    /// `faults` and throws at the first step the file-sync transport cannot run.
    private static func walk(_ steps: [ScenarioStep], source: String,
                             faults: ([(key: String, value: String?)]) -> Void) throws(ScenarioError) {
        for step in steps {
            switch step.action {
            case let .repeated(_, body):
                try walk(body, source: source, faults: faults)
            case let .random(block):
                try walk(block.choices.map(\.step), source: source, faults: faults)
            case let .faults(_, pairs):
                faults(pairs)
            case .quota(.some):
                throw ScenarioError(source: source, line: step.line,
                                    "'quota' needs the emulated iCloud: a file-sync engine has no quota to fill (run this scenario with --transport icloud)")
            default:
                break
            }
        }
    }
}
