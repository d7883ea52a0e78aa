import Foundation
import UbiquitySimulation

/// The built-in `churn` scenario (8 devices, thousands of steps, simulated time) run in this
/// process, as `ubiq scenario run churn` runs it: the wall time of the whole run, which must
/// also pass. `--smoke` cuts it to its first 200 steps.
enum ChurnBenchmark {
    static func run(_ book: FigureBook) throws -> String {
        let scenario = try ScenarioLibrary.load("churn", executable: CommandLine.arguments[0])
        let scratch = try ScratchDirectory()
        defer { scratch.cleanUp() }
        var options = ScenarioOptions()
        options.workDirectory = scratch.path
        if book.options.smoke { options.steps = 200 }
        var result: ScenarioResult?
        let time = try seconds { result = try ScenarioRunner.run(scenario, options: options) }
        guard let result, result.passed else {
            throw BenchmarkError("the churn scenario failed: \(result?.violations.map(\.description).joined(separator: "; ") ?? "no result")")
        }
        book.sheet.record("churn_seconds", time, "seconds of wall time for the built-in churn scenario")
        var table = MarkdownTable("Churn scenario", ["devices", "steps", "simulated time", "wall time", "outcome"])
        table.add(["\(result.devices.count)", Measurement.grouped(result.steps), "\(Int(result.simulatedSeconds / 3600)) h",
                   String(format: "%.1f s", time), "passed"])
        table.notes = ["`ScenarioRunner.run` of the built-in scenario with its own seed, in simulated time (what `ubiq scenario run churn` does)."]
        return table.text
    }
}
