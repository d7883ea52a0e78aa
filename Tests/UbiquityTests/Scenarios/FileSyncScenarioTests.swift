import Foundation
import Testing
import UbiquitySimulation

/// Scenarios on the file-sync transport (`--transport file-sync`): devices spread over
/// machines, each machine's copy of the cloud kept in step by the Syncthing-like engine on
/// simulated time. Every built-in runs there (the quota is refused with its line), a device
/// cut off takes its machine with it, conflict copies come by themselves, a seed replays mark
/// for mark, and the checks read every machine's copy, so an engine that loses files is caught.
@Suite("Scenarios on a file-sync engine")
struct FileSyncScenarioTests {
    static func options(seed: UInt64? = nil, steps: Int? = nil) throws -> ScenarioOptions {
        var options = try ScenarioFixtures.options(seed: seed)
        options.transport = .fileSync
        options.steps = steps
        return options
    }

    static func run(_ text: String) throws -> ScenarioResult {
        try ScenarioFixtures.run(try ScenarioParser.parse(text, source: "test.scenario"), try options())
    }

    /// Churn runs 300 of its 2,000 random steps here (the whole of it runs on the iCloud transport).
    @Test(arguments: BuiltInScenarioTests.names.filter { $0 != "quota-exceeded" })
    func everyBuiltInScenarioPassesOnTheFileSyncEngine(name: String) throws {
        let result = try ScenarioFixtures.run(try ScenarioFixtures.builtIn(name), try Self.options(steps: name == "churn" ? 300 : nil))
        let passed = result.passed
        #expect(passed, "\(result.text)")
        #expect(result.transport == "file-sync")
        #expect(result.machines.count == min(3, result.devices.count), "\(result.machines.map(\.name))")
        #expect(result.transfers.uploads > 0 && result.transfers.downloads > 0, "files travelled: \(result.transfers.line)")
        #expect(result.replay.contains("--transport file-sync"), "\(result.replay)")
        if name == "churn" {
            let faults = result.transfers
            #expect(faults.drops > 0 && faults.truncations > 0 && faults.offlineWindows > 0, "\(faults.line)")
        }
    }

    @Test func aQuotaIsRefusedWithItsLineBeforeAnythingRuns() throws {
        let options = try Self.options()
        let error = try #require(throws: ScenarioError.self) {
            try ScenarioRunner.run(try ScenarioFixtures.builtIn("quota-exceeded"), options: options)
        }
        #expect(error.line > 0)
        #expect(error.message.hasPrefix("'quota' needs the emulated iCloud: a file-sync engine has no quota to fill"))
        #expect(!FileManager.default.fileExists(atPath: options.workDirectory! + "/devices"))
    }

    @Test func machinesBelongToTheFileSyncTransport() throws {
        var options = try ScenarioFixtures.options()
        options.machines = 2
        let error = try #require(throws: ScenarioError.self) { try ScenarioRunner.run(try ScenarioFixtures.builtIn("first-launch"), options: options) }
        #expect(error.description == "--machines: machines belong to the file-sync transport: add --transport file-sync")
        #expect(throws: ScenarioError.self) { try ScenarioParser.parse("devices a\nmachines 0\n", source: "m.scenario") }
    }

    /// Three devices on two machines: `a` and `c` share machine 1's copy, `b` has machine 2.
    /// Cutting `a` off cuts `c` off too; `c`'s save reaches `a` at once and `b` only after.
    @Test func devicesOnOneMachineShareItsCopyAndItsNetwork() throws {
        let result = try Self.run("""
            devices a b c
            machines 2
            all launch
            wait 1m
            a offline
            c insert Note n title=x
            c save
            wait 5m
            a expect Note n title=x
            b expect count Note 0
            c expect uploads-waiting 1
            a online
            settle
            b expect Note n title=x
            expect converged
            """)
        let passed = result.passed
        #expect(passed, "\(result.text)")
        #expect(result.devices.map(\.machine) == [1, 2, 1])
        #expect(result.machines.map(\.devices) == [["a", "c"], ["b"]])
        #expect(result.timeline.marks.contains { $0.lane == "c" && $0.kind == .offline }, "c's lane shows its machine cut off")
    }

    /// Two machines roll a baseline while apart: the engine keeps one `baseline.zip` and makes
    /// the other a conflict copy, as Syncthing does.
    @Test func twoMachinesWritingOnePathMakeAConflictCopy() throws {
        let result = try Self.run("""
            devices a b
            all launch
            wait 1m
            a insert Note n title=x
            a save
            settle
            a offline
            a roll-baseline force
            b roll-baseline force
            wait 1m
            a online
            wait 10m
            """)
        #expect(result.transfers.conflictCopies >= 1, "\(result.text)")
        #expect(result.timeline.marks.contains { $0.kind == .note && $0.text.contains("baseline.sync-conflict-") }, "the copy is on the timeline")
    }

    @Test func aSeedReplaysMarkForMark() throws {
        let marks = { (result: ScenarioResult) in result.timeline.marks.map { "\($0.time) \($0.lane) \($0.kind) \($0.text)" } }
        let scenario = try RandomScenario.scenario(seed: 3, steps: 120)
        let first = try ScenarioFixtures.run(scenario, try Self.options())
        let again = try ScenarioFixtures.run(scenario, try Self.options())
        #expect(first.transfers.downloads > 0)
        #expect(marks(again) == marks(first))
        let other = try ScenarioFixtures.run(try RandomScenario.scenario(seed: 4, steps: 120), try Self.options())
        #expect(marks(other) != marks(first))
    }

    /// The checks read every machine's copy: an engine that records deliveries it never writes
    /// breaks convergence, and the report says so. No baselines (they would heal the loss).
    @Test(arguments: [UInt64(11), 12])
    func anEngineThatLosesFilesIsCaught(seed: UInt64) throws {
        var options = try Self.options(seed: seed)
        options.extraFaults = [("none", nil), ("lose", "0.3")]
        let result = try ScenarioFixtures.run(try RandomScenario.scenario(seed: seed, removals: false, baselines: false), options)
        let passed = result.passed
        #expect(!passed, "seed \(seed): an engine losing 30 % of deliveries must break an invariant\n\(result.text)")
        #expect(result.transfers.lost > 0, "seed \(seed)")
        let caught = result.violations.map(\.message).joined(separator: "\n")
        #expect(caught.contains("never received") || caught.contains("different states"), "seed \(seed): \(caught)")
        if let work = options.workDirectory { try? FileManager.default.removeItem(atPath: work) }
    }
}
