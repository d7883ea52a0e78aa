import Ubiquity

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
    /// Why it did not hold: its violation's message.
    public var failure: String?

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

extension ExpectationOutcome {
    /// `held`, `failed` or `not-reached`.
    public var outcome: String { failedAt != nil ? "failed" : held > 0 ? "held" : "not-reached" }

    /// ✓ held, ✗ failed, – not reached.
    var sign: String { failedAt != nil ? "✗" : held > 0 ? "✓" : "–" }

    /// `held`, `held 5 times`, `held 2 times, then failed at +1h`, `failed at +5m`, `not reached`.
    public var outcomeText: String {
        let heldText = held == 1 ? "held" : "held \(held) times"
        guard let failedAt else { return held > 0 ? heldText : "not reached" }
        let failure = "failed at +\(SimulatedDuration.text(failedAt))"
        return held > 0 ? "\(heldText), then \(failure)" : failure
    }

    /// `9 held`, `1 held, 1 failed, 1 not reached`: how the expectations of a run went.
    static func counts(_ expectations: [ExpectationOutcome]) -> String {
        let held = expectations.filter { $0.outcome == "held" }.count
        let failed = expectations.filter { $0.outcome == "failed" }.count
        let unreached = expectations.filter { $0.outcome == "not-reached" }.count
        return ["\(held) held", failed > 0 ? "\(failed) failed" : nil, unreached > 0 ? "\(unreached) not reached" : nil]
            .compactMap { $0 }.joined(separator: ", ")
    }

    /// `{line, text, held, outcome, timesHeld, failedAt, reason}`: `held` is whether it was
    /// checked and never failed; `reason` is the violation's message when it failed, else null.
    public var jsonValue: JSONValue {
        .object([
            "line": .int(Int64(line)), "text": .string(text), "held": .bool(outcome == "held"), "outcome": .string(outcome),
            "timesHeld": .int(Int64(held)), "failedAt": failedAt.map(JSONValue.double) ?? .null,
            "reason": failure.map(JSONValue.string) ?? .null,
        ])
    }
}
