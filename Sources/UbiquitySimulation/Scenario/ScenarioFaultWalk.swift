/// The walk a transport other than the emulated daemon makes over a scenario before it runs:
/// which fault lines it has to ignore, and whether a step needs the daemon itself.
enum ScenarioFaultWalk {
    /// Visits every step, inside `repeat` and `random` blocks too: hands each `faults` line's
    /// pairs to `faults`, and throws `quotaRefusal` at the first `quota` step (only the emulated
    /// daemon has a quota to fill).
    static func visit(_ steps: [ScenarioStep], source: String, quotaRefusal: String,
                      faults: ([(key: String, value: String?)]) -> Void) throws(ScenarioError) {
        for step in steps {
            switch step.action {
            case let .repeated(_, body):
                try visit(body, source: source, quotaRefusal: quotaRefusal, faults: faults)
            case let .random(block):
                try visit(block.choices.map(\.step), source: source, quotaRefusal: quotaRefusal, faults: faults)
            case let .faults(_, pairs):
                faults(pairs)
            case .quota(.some):
                throw ScenarioError(source: source, line: step.line, quotaRefusal)
            default:
                break
            }
        }
    }
}
