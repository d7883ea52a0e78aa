import Foundation
import UbiquitySimulation

/// Where the scenario tests find the built-in scenarios and put their work.
enum ScenarioFixtures {
    /// `containers/scenarios` of this package, found from this file.
    static let directory: String = {
        var folder = URL(fileURLWithPath: #filePath)
        while folder.path != "/" && !FileManager.default.fileExists(atPath: folder.appendingPathComponent("Package.swift").path) {
            folder.deleteLastPathComponent()
        }
        return folder.appendingPathComponent("containers/scenarios").path
    }()

    static func builtIn(_ name: String) throws -> Scenario {
        try ScenarioParser.load(path: directory + "/" + name + ".scenario")
    }

    static var builtInNames: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [])
            .filter { $0.hasSuffix(".scenario") }.map { String($0.dropLast(".scenario".count)) }.sorted()
    }

    /// Options for a test run: work in memory when the machine has /dev/shm (scenarios write
    /// thousands of small files), else in the temporary folder (named, so `run` can remove
    /// it), kept only when the run fails.
    static func options(seed: UInt64? = nil, processes: Bool = false) throws -> ScenarioOptions {
        var options = ScenarioOptions()
        options.seed = seed
        if processes { options.deviceExecutable = try UbiqBinary.path() }
        let root = FileManager.default.isWritableFile(atPath: "/dev/shm") ? "/dev/shm/" : NSTemporaryDirectory()
        options.workDirectory = root + "ubiquity-test-" + UUID().uuidString
        return options
    }

    /// Runs and removes the work directory unless the run failed. A run the test means to fail
    /// (`expectingViolations`: the test checks them) goes too: nobody reads the work of a
    /// failure asked for, and kept, each one was left in /dev/shm by every test run.
    static func run(_ scenario: Scenario, _ options: ScenarioOptions, expectingViolations: Bool = false) throws -> ScenarioResult {
        let result = try ScenarioRunner.run(scenario, options: options)
        if result.passed || expectingViolations, let work = options.workDirectory { try? FileManager.default.removeItem(atPath: work) }
        return result
    }

    /// The work directory a failed run's report names as kept (`nil` for a run that passed).
    static func keptWorkDirectory(of result: ScenarioResult) -> String? {
        result.replay.components(separatedBy: "(work directory kept: ").dropFirst().first.map { String($0.dropLast()) }
    }
}
