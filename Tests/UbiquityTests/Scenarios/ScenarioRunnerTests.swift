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

/// `mutate` over a model of the team's, and the check that one constrained value is one object.
@Suite("Scenario runner: uniqueness constraints")
struct ScenarioUniquenessTests {
    static let workshop = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures/models/Workshop.xcdatamodel").path

    /// Four devices insert the three pooled values of every constrained entity at one instant:
    /// once settled, each holds one object per value (Bin's labels; Tool's skus, PowerTools
    /// among them), converged.
    @Test(arguments: [ScenarioTransport.icloud, .fileSync])
    func concurrentInsertsOfOneValueLeaveOneObjectOnEveryDevice(transport: ScenarioTransport) throws {
        let text = """
            model "\(Self.workshop)"
            devices d1 d2 d3 d4
            all launch
            all policy object-trump
            wait 2m
            all mutate pooled
            settle
            """ + (1...4).map { "\nd\($0) expect count Bin 3\nd\($0) expect count Tool 3" }.joined() + "\nexpect converged"
        var options = try ScenarioFixtures.options()
        options.transport = transport
        let result = try ScenarioFixtures.run(try ScenarioParser.parse(text, source: "pooled.scenario"), options)
        #expect(result.passed, "\(result.text)")
        #expect(result.saves == 4, "\(result.text)")
    }

    /// Two devices that update two objects to one value keep both (only inserts are joined,
    /// Docs/SyncSemantics.md): the check leaves objects whose value an update wrote.
    @Test func concurrentUpdatesToOneValueKeepBothObjects() throws {
        let result = try ScenarioRunnerTests.run("""
            model "\(Self.workshop)"
            devices d1 d2
            all launch
            wait 2m
            d1 insert Bin b1 label=one
            d1 save
            d2 insert Bin b2 label=two
            d2 save
            settle
            d1 update Bin b1 label=same
            d1 save
            d2 update Bin b2 label=same
            d2 save
            settle
            d1 expect count Bin 2
            d2 expect count Bin 2
            expect converged
            """)
        #expect(result.passed, "\(result.text)")
    }
}
