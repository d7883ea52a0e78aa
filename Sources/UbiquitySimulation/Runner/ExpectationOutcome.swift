/// One expectation a scenario writes (an `expect …` or `wait-for` line) and how it went in a
/// run: how many times it held (a line in a `repeat` block runs more than once), when it
/// failed (the run stops at its first violation), or that the run never came to it.
public struct ExpectationOutcome: Sendable, Equatable {
    /// Its line in the scenario file.
    public var line: Int
    /// The line as written.
    public var text: String
    /// How many times it was checked and held.
    public var held = 0
    /// When it did not hold, in simulated seconds since the start.
    public var failedAt: Double?

    /// Whether the run checked it at all.
    public var reached: Bool { held > 0 || failedAt != nil }

    /// Every expectation line of `steps`, inside `repeat` and `random` blocks too, in the
    /// file's order, none reached yet.
    static func expectations(in steps: [ScenarioStep]) -> [ExpectationOutcome] {
        steps.flatMap { step -> [ExpectationOutcome] in
            switch step.action {
            case let .repeated(_, body): return expectations(in: body)
            case let .random(block): return expectations(in: block.choices.map(\.step))
            default: return isExpectation(step.action) ? [ExpectationOutcome(line: step.line, text: step.text)] : []
            }
        }.sorted { $0.line < $1.line }
    }

    /// Whether a step checks something the scenario expects (and fails the run when it does not hold).
    static func isExpectation(_ action: StepAction) -> Bool {
        switch action {
        case .expectConverged, .expectConflictsRecorded, .expectBounded: return true
        case let .device(_, verb):
            switch verb {
            case .expectEncryption, .expectStore, .expectEvents, .expectValues, .expectDeleted, .expectCount, .expectSaveFails,
                 .expectUploadsWaiting, .expectConflicts, .waitFor:
                return true
            default:
                return false
            }
        default:
            return false
        }
    }
}
