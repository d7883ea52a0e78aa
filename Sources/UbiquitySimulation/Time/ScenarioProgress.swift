/// When a long scenario run says how far it is: every `interval` seconds of wall time, so a
/// run of thousands of steps is not silent for minutes. Short runs never print.
struct ScenarioProgress {
    static let interval = 10.0
    let started = ContinuousClock.now
    private var last = ContinuousClock.now

    /// The wall seconds since the start when a line is due now, else `nil`.
    mutating func due() -> Double? {
        let now = ContinuousClock.now
        guard Self.seconds(now - last) >= Self.interval else { return nil }
        last = now
        return Self.seconds(now - started)
    }

    private static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}

extension ScenarioRunner {
    /// After each step: `churn: step 812 of 2011, simulated +3d4h, 10 s` when a line is due.
    func reportProgress() {
        guard let report = options.onProgress, let elapsed = progress.due() else { return }
        report("\(scenario.name): step \(stepCount) of \(Self.plannedSteps(scenario.steps)), simulated +\(SimulatedDuration.text(clock.seconds)), \(Int(elapsed)) s")
    }

    /// Steps the scenario runs at most (a random step with no device that can take it is skipped).
    static func plannedSteps(_ steps: [ScenarioStep]) -> Int {
        steps.reduce(0) { total, step in
            switch step.action {
            case let .repeated(times, body): return total + times * plannedSteps(body)
            case let .random(block): return total + block.count
            default: return total + 1
            }
        }
    }
}
