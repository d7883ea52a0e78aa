/// What a scenario becomes on Syncthing hosts, decided before anything starts. Syncthing's own
/// behaviour (its delays, its order, its conflict copies) stands in for the emulated daemon's
/// faults, so those are ignored, with one warning; a step that only means something with the
/// emulated daemon (an iCloud quota to fill) stops the run with a clear message
/// instead of passing or failing for the wrong reason.
struct SyncthingPlan {
    /// The most hosts `scripts/syncthing-hosts.sh` makes (its addresses and ports are per digit).
    static let hostRange = 2...9

    /// Said once in the report: what is ignored, and why.
    var warnings: [String] = []

    /// Checks `scenario` (after `--peers` and `--steps`) with the `--faults` added on top.
    init(_ scenario: Scenario, extraFaults: [(key: String, value: String?)]) throws(ScenarioError) {
        guard Self.hostRange.contains(scenario.devices.count) else {
            throw ScenarioError(source: scenario.source, line: 0,
                                "--syncthing runs each device on a Syncthing host of its own: \(Self.hostRange.lowerBound) to \(Self.hostRange.upperBound) devices, not \(scenario.devices.count)")
        }
        var ignored: [String] = []
        func note(_ parts: [String]) { for part in parts where !ignored.contains(part) { ignored.append(part) } }
        // Clock skew is the device's own clock, not the daemon's: it stays.
        func note(_ plan: FaultPlan) {
            var plan = plan
            plan.skew = 0...0
            if !plan.isQuiet { note(plan.summary.split(separator: " ").map(String.init)) }
        }
        note(scenario.faults)
        for device in scenario.devices { if let faults = device.faults { note(faults) } }
        note(extraFaults.filter { $0.key != "skew" }.map { $0.key + ($0.value.map { "=" + $0 } ?? "") })
        try ScenarioFaultWalk.visit(scenario.steps, source: scenario.source,
                                    quotaRefusal: "'quota' needs the emulated daemon: Syncthing has no iCloud quota to fill (run this scenario without --syncthing)") { pairs in
            note(pairs.filter { $0.key != "skew" && $0.key != "none" }.map { $0.key + ($0.value.map { "=" + $0 } ?? "") })
        }
        if !ignored.isEmpty {
            warnings.append("Syncthing carries the files: the emulated daemon's faults are ignored (\(ignored.joined(separator: " ")))")
        }
    }
}
