import Foundation
import Testing
import UbiquitySimulation

/// The exhaustive check of the baseline protocol (Docs/Lifecycle.md, "The rule"): every
/// interleaving of saves, syncs, rolls, collections and file-sync deliveries — in any order,
/// deletions late, two machines' baselines colliding into a conflict copy with either keeping
/// the name — of small configurations. The model's peers decide with `BaselineProtocol`, the
/// functions the sync engine runs. (`ubiq protocol check` runs larger ones; CI runs it in release.)
@Suite("The baseline protocol, every interleaving")
struct ProtocolCheckTests {
    /// The concurrent-baselines bug in its plainest form: two machines roll before seeing each other's
    /// baseline, the owner of one collects its log, the sync tool keeps the other under the name
    /// — and under the rules before the fix (only the name's baseline counts), a peer lacks a
    /// transaction for good. The exploration must find it, with its steps.
    @Test func theRulesBeforeTheFixLoseATransaction() {
        let result = ProtocolExplorer(ProtocolModelConfiguration(placement: [0, 1], saves: 2, rolls: 2, forcedRolls: 0, rules: .legacy)).run()
        let violation = result.violation
        #expect(violation != nil, "\(result.summary)")
        #expect(violation?.message.contains("lacks") == true, "\(violation?.description ?? "")")
        #expect(violation?.trace.contains { $0.contains("conflict") } == true, "the steps show the colliding rolls: \(violation?.description ?? "")")
    }

    /// The same configuration under the rule: every reachable state explored, none loses a
    /// transaction, every quiescent one has converged.
    @Test func theRuleHoldsForTwoMachinesRollingAtOnce() {
        let result = ProtocolExplorer(ProtocolModelConfiguration(placement: [0, 1], saves: 2, rolls: 2, forcedRolls: 0)).run()
        #expect(result.passed, "\(result.summary)\n\(result.violation?.description ?? "")")
        #expect(result.quiescentStates > 10)
    }

    /// Three peers on two machines, one of them a newcomer that starts later, with the forced
    /// rolls the rule asks for (transactions no baseline or log holds, unresolved copies).
    @Test func theRuleHoldsForThreePeersOnTwoMachinesWithANewcomer() {
        let result = ProtocolExplorer(ProtocolModelConfiguration(placement: [0, 0, 1], latecomers: [2], saves: 1, rolls: 2, forcedRolls: 1)).run()
        #expect(result.passed, "\(result.summary)\n\(result.violation?.description ?? "")")
        #expect(result.quiescentStates > 5)
    }
}
