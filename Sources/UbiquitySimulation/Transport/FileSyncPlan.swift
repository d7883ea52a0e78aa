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
        try ScenarioFaultWalk.visit(scenario.steps, source: scenario.source,
                                    quotaRefusal: "'quota' needs the emulated iCloud: a file-sync engine has no quota to fill (run this scenario with --transport icloud)", faults: note)
        if !ignored.isEmpty {
            warnings.append("a file-sync engine never delivers a file twice: \(ignored.joined(separator: " ")) is ignored")
        }
    }
}
