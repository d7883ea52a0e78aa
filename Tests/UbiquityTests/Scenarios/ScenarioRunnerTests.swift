import Foundation
import Testing
import UbiquitySimulation

/// The runner's own promises: a broken expectation or invariant is reported with its line and
/// ends the run; the initial import waits for the container to be downloaded.
@Suite("Scenario runner")
struct ScenarioRunnerTests {
    static func run(_ text: String, expectingViolations: Bool = false) throws -> ScenarioResult {
        try ScenarioFixtures.run(try ScenarioParser.parse(text, source: "test.scenario"), try ScenarioFixtures.options(),
                                 expectingViolations: expectingViolations)
    }

    @Test func anOfflineNewcomerStaysOnItsFallbackUntilItIsOnline() throws {
        let offline = try Self.run("""
            devices mac ipad
            mac launch
            wait 1m
            mac insert Note n title=x
            mac save
            ipad offline
            ipad launch
            ipad wait-for did-change:initialImportCompleted:account within 1h
            """, expectingViolations: true)
        #expect(offline.violations.count == 1)
        #expect(offline.violations.first?.line == 8)
        #expect(offline.violations.first?.message.contains("did not post did-change:initialImportCompleted:account within 1h") == true, "\(offline.violations)")
        let kept = try #require(ScenarioFixtures.keptWorkDirectory(of: offline))
        #expect(!FileManager.default.fileExists(atPath: kept), "a run meant to fail leaves nothing behind")
        let online = try Self.run("""
            devices mac ipad
            mac launch
            wait 1m
            mac insert Note n title=x
            mac save
            ipad offline
            ipad launch
            wait 1h
            ipad expect store fallback
            ipad online
            ipad wait-for did-change:initialImportCompleted:account within 1h
            ipad expect Note n title=x
            """)
        let passed = online.passed
        #expect(passed, "\(online.text)")
    }

    @Test func aFailedExpectationNamesItsLineAndEndsTheRun() throws {
        let result = try Self.run("""
            devices a b
            all launch
            wait 1m
            a insert Note n title=first
            a save
            settle
            b expect Note n title=second
            b insert Note never title=reached
            b save
            """, expectingViolations: true)
        #expect(result.violations.count == 1)
        #expect(result.violations.first?.line == 7)
        #expect(result.violations.first?.message.contains("b: Note/n.title is \"first\"; the scenario expects \"second\"") == true, "\(result.violations)")
        #expect(result.saves == 1, "nothing after the violation ran")
        #expect(result.replay.contains("--seed 1") && result.replay.contains("work directory kept"))
    }

    @Test func theLogBoundIsCheckedAfterEveryStep() throws {
        let result = try Self.run("""
            devices a
            bound 3
            a launch
            wait 1m
            repeat 10
              a insert Note n{i} title=x
              a save
              wait 1m
            end
            """, expectingViolations: true)
        #expect(result.violations.first?.message.contains("more than the bound of 3") == true, "\(result.violations)")
        #expect(result.peakLogFiles == 4)
    }
}
