import Foundation
import UbiquityBase

/// What an exhaustive exploration found.
public struct ProtocolCheckResult: Sendable {
    public let configuration: ProtocolModelConfiguration
    /// Distinct states reached.
    public let states: Int
    /// States where nothing more can happen (every change delivered, every peer synced).
    public let quiescentStates: Int
    /// States where only a forced roll could still change something but the budget of forced
    /// rolls was spent: judged for convergence under the rule, not under the old rules.
    public let withheldStates: Int
    /// Whether every reachable state was explored (false: `maxStates` cut it short).
    public let complete: Bool
    /// The first violation found, with the shortest sequence of steps that leads to it.
    public let violation: ProtocolViolation?
    public let seconds: Double

    public var passed: Bool { complete && violation == nil }

    public var summary: String {
        let outcome = violation == nil ? (complete ? "no violation" : "no violation in the part explored (INCOMPLETE)") : "VIOLATION"
        return "\(configuration): \(states) states, \(quiescentStates) quiescent (\(withheldStates) more past the forced-roll budget), \(String(format: "%.1f", seconds)) s — \(outcome)"
    }
}

/// A state that breaks the rule, and how to get there from the start.
public struct ProtocolViolation: Sendable, CustomStringConvertible {
    public let message: String
    public let trace: [String]

    public var description: String {
        ([message, "steps (shortest):"] + trace.enumerated().map { "  \($0.offset + 1). \($0.element)" }).joined(separator: "\n")
    }
}

/// Explores every interleaving of the model breadth first (so a counterexample is as short as
/// any) and checks, in every state, that no saved transaction is lost — held by no store, no
/// log and no baseline anywhere — and, in every quiescent state (nothing left to deliver, no
/// peer with anything to do), that every peer holds every saved transaction: nobody waits
/// forever and nobody diverged.
public struct ProtocolExplorer {
    public let configuration: ProtocolModelConfiguration
    /// A bound on the states kept in memory.
    public var maxStates = 2_000_000
    /// Depth first finds deep counterexamples sooner; breadth first gives the shortest one.
    /// Both visit every reachable state when they complete.
    public var depthFirst = false

    public init(_ configuration: ProtocolModelConfiguration) {
        self.configuration = configuration
    }

    public func run() -> ProtocolCheckResult {
        let start = Date()
        let model = ProtocolModel(configuration)
        var states: [ModelState] = [model.initialState]
        var parents: [(parent: Int, step: ModelStep?)] = [(-1, nil)]
        var index: [ModelState: Int] = [model.initialState: 0]
        var quiescent = 0, withheld = 0
        // Breadth first takes from the front (`head`), depth first from the back.
        var pending = [0], head = 0
        func result(_ violation: ProtocolViolation?, complete: Bool) -> ProtocolCheckResult {
            ProtocolCheckResult(configuration: configuration, states: states.count, quiescentStates: quiescent,
                                withheldStates: withheld, complete: complete,
                                violation: violation, seconds: Date().timeIntervalSince(start))
        }
        func trace(to state: Int) -> [String] {
            var steps: [String] = []
            var at = state
            while let step = parents[at].step {
                steps.append(step.description + "\n       → " + model.describe(states[at]))
                at = parents[at].parent
            }
            return steps.reversed()
        }
        while head < pending.count {
            let cursor: Int
            if depthFirst { cursor = pending.removeLast() } else { cursor = pending[head]; head += 1 }
            let state = states[cursor]
            if let lost = lostTransaction(state, model) {
                return result(ProtocolViolation(message: lost, trace: trace(to: cursor)), complete: false)
            }
            let next = model.successors(of: state)
            if !next.contains(where: { !$0.0.isChoice }) {
                // A state where only a forced roll the budget no longer allows could change
                // something is judged under the rule — copies are read wherever they lie, so the
                // data must have converged even then (the roll would only tidy copies up) — but
                // not under the old rules, which relied on it.
                let isWithheld = model.forcedRollWithheld(state)
                if isWithheld { withheld += 1 } else { quiescent += 1 }
                if !isWithheld || configuration.rules == .current, let failure = convergenceFailure(state, model) {
                    return result(ProtocolViolation(message: failure, trace: trace(to: cursor)), complete: false)
                }
            }
            for (step, successor) in next where index[successor] == nil {
                guard states.count < maxStates else { return result(nil, complete: false) }
                index[successor] = states.count
                pending.append(states.count)
                states.append(successor)
                parents.append((cursor, step))
            }
        }
        return result(nil, complete: true)
    }

    /// Random walks instead of every interleaving, for configurations too large to exhaust:
    /// `walks` runs from the start, each step a successor drawn from `seed`, until quiescent.
    /// Finds deep counterexamples cheaply; proves nothing when it finds none.
    public func walk(walks: Int, seed: UInt64) -> ProtocolCheckResult {
        let start = Date()
        let model = ProtocolModel(configuration)
        var random = SeededGenerator(seed: seed)
        var visited = 0, quiescent = 0, withheld = 0
        for walk in 0..<walks {
            var state = model.initialState
            var trace: [String] = []
            while true {
                visited += 1
                if let lost = lostTransaction(state, model) {
                    return ProtocolCheckResult(configuration: configuration, states: visited, quiescentStates: quiescent, withheldStates: withheld,
                                               complete: false, violation: ProtocolViolation(message: "walk \(walk): " + lost, trace: trace),
                                               seconds: Date().timeIntervalSince(start))
                }
                let next = model.successors(of: state)
                if !next.contains(where: { !$0.0.isChoice }) {
                    if model.forcedRollWithheld(state) {
                        withheld += 1
                        if configuration.rules != .current { break }
                    } else {
                        quiescent += 1
                    }
                    if let failure = convergenceFailure(state, model) {
                        return ProtocolCheckResult(configuration: configuration, states: visited, quiescentStates: quiescent, withheldStates: withheld,
                                                   complete: false, violation: ProtocolViolation(message: "walk \(walk): " + failure, trace: trace),
                                                   seconds: Date().timeIntervalSince(start))
                    }
                    // Only choices remain: stop here half the time, else make one.
                    if next.isEmpty || Bool.random(using: &random) { break }
                }
                let (step, successor) = next.randomElement(using: &random)!
                trace.append(step.description)
                state = successor
            }
        }
        return ProtocolCheckResult(configuration: configuration, states: visited, quiescentStates: quiescent, withheldStates: withheld,
                                   complete: false, violation: nil, seconds: Date().timeIntervalSince(start))
    }

    /// A saved transaction that nothing holds any more: no store, no log and no baseline on any
    /// machine or on its way to one.
    private func lostTransaction(_ state: ModelState, _ model: ProtocolModel) -> String? {
        for author in 0..<configuration.peers where state.created[author] > 0 {
            for number in 1...state.created[author] {
                if (0..<configuration.peers).contains(where: { model.store($0, state)[author] >= number }) { continue }
                let held = model.anywhere(state) { path, content in
                    switch content {
                    case let .baseline(knowledge, _): return knowledge[author] >= number
                    case .log: return path == .log(peer: author, number: Int(number))
                    case .receipt: return false
                    }
                }
                if !held { return "transaction \(number) of p\(author) is lost: no store, log or baseline holds it" }
            }
        }
        return nil
    }

    /// In a quiescent state (only saves and rolls by choice could change anything) every peer
    /// must hold every saved transaction.
    private func convergenceFailure(_ state: ModelState, _ model: ProtocolModel) -> String? {
        for peer in 0..<configuration.peers where model.store(peer, state) != state.created {
            let store = model.store(peer, state)
            let missing = (0..<configuration.peers).filter { store[$0] < state.created[$0] }
                .map { "p\($0) \(store[$0] + 1)…\(state.created[$0])" }
            return "quiescent, but p\(peer) (on m\(model.machine(of: peer))) lacks \(missing.joined(separator: ", ")) and nothing left to happen brings it"
        }
        return nil
    }
}
