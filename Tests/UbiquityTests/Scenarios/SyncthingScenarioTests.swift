import Foundation
import Testing
import Ubiquity
@testable import UbiquitySimulation

/// What `--syncthing` decides before any host starts, and how it reads a host's files. The runs
/// on real Syncthing hosts are in `scripts/multi-machine-test.sh ci` (it installs Syncthing and
/// needs root for namespaces), which CI runs after these tests.
@Suite("Scenarios on Syncthing hosts")
struct SyncthingScenarioTests {
    /// Options that would start hosts with `script`.
    private func options(script: String = "/nonexistent/syncthing-hosts.sh") throws -> ScenarioOptions {
        var options = try ScenarioFixtures.options()
        var syncthing = SyncthingOptions()
        syncthing.script = script
        options.syncthing = syncthing
        return options
    }

    @Test func aQuotaStepIsRefusedWithItsLineBeforeAnyHostStarts() throws {
        let scenario = try ScenarioFixtures.builtIn("quota-exceeded")
        let text = try String(contentsOfFile: ScenarioFixtures.directory + "/quota-exceeded.scenario", encoding: .utf8)
        let quotaLine = try #require(text.split(separator: "\n", omittingEmptySubsequences: false)
            .firstIndex { $0.trimmingCharacters(in: .whitespaces).hasPrefix("quota ") }) + 1
        let options = try options()
        let error = try #require(throws: ScenarioError.self) { try ScenarioRunner.run(scenario, options: options) }
        #expect(error.line == quotaLine)
        #expect(error.message.hasPrefix("'quota' needs the emulated daemon"))
        #expect(!FileManager.default.fileExists(atPath: options.workDirectory! + "/hosts"))
    }

    @Test func oneHostPerDeviceSoTwoToNineDevices() throws {
        let one = try ScenarioParser.parse("scenario alone\ndevices mac\nmac launch\n", source: "alone.scenario")
        let error = try #require(throws: ScenarioError.self) { try ScenarioRunner.run(one, options: try options()) }
        #expect(error.description == "alone.scenario: --syncthing runs each device on a Syncthing host of its own: 2 to 9 devices, not 1")
    }

    @Test func theDaemonsFaultsAreIgnoredWithOneWarningAndClockSkewIsKept() throws {
        let scenario = try ScenarioParser.parse("""
            scenario faulty
            devices a b
            device b skew 1h
            faults delay=1s..30s drop=0.1 skew=-5m..5m
            a launch
            faults a duplicate=0.2 drop=0.1
            random 3
              1 faults reorder
              1 wait 1s
            end
            """, source: "faulty.scenario")
        let plan = try SyncthingPlan(scenario, extraFaults: [(key: "truncate", value: "0.1"), (key: "skew", value: "1m")])
        #expect(plan.warnings == ["Syncthing carries the files: the emulated daemon's faults are ignored (truncate=0.1 delay=1s..30s drop=0.1 duplicate=0.2 reorder)"])
        let quiet = try SyncthingPlan(try ScenarioParser.parse("scenario quiet\ndevices a b\nfaults skew=2h\na launch\n", source: "q"), extraFaults: [])
        #expect(quiet.warnings.isEmpty)
    }

    @Test func aMissingHostsScriptIsSaidInOneLine() throws {
        let scenario = try ScenarioFixtures.builtIn("first-launch")
        let options = try options(script: "/nonexistent/syncthing-hosts.sh")
        let error = try #require(throws: SyncthingUnavailable.self) { try ScenarioRunner.run(scenario, options: options) }
        #expect(error.description == "no hosts script at /nonexistent/syncthing-hosts.sh")
        try? FileManager.default.removeItem(atPath: options.workDirectory!)
    }

    @Test func aHostListingLeavesOutFilesOnTheirWayAndOurLocks() throws {
        let root = NSTemporaryDirectory() + "listing-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: root) }
        let peer = root + "/alice/CoreData/peer~1"
        try FileManager.default.createDirectory(atPath: peer, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: root + "/.stfolder", withIntermediateDirectories: true)
        for (name, bytes) in [("1.cdt", 10), (".syncthing.2.cdt.tmp", 5), ("lock.nosync", 1)] {
            try Data(count: bytes).write(to: URL(fileURLWithPath: peer + "/" + name))
        }
        let listing = HostListing.of(root)
        #expect(Array(listing.files.keys) == ["alice/CoreData/peer~1/1.cdt"])
        #expect(listing.files.values.first?.size == 10)

        // A host that still lacks the log, or holds another size of it, differs on that path only.
        var other = listing
        other.files["alice/CoreData/peer~1/1.cdt"] = HostListing.Stamp(size: 9, modified: 0)
        other.files["bob/CoreData/peer~2/1.cdt"] = HostListing.Stamp(size: 3, modified: 0)
        #expect(listing.differences(from: other) == ["alice/CoreData/peer~1/1.cdt", "bob/CoreData/peer~2/1.cdt"])
        #expect(other.account("bob").keys.sorted() == ["bob/CoreData/peer~2/1.cdt"])
    }
}
