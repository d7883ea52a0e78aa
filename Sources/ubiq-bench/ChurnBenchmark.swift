import Foundation
import UbiquitySimulation

/// The built-in `churn` scenario (8 devices, thousands of steps, simulated time) run in this
/// process, as `ubiq scenario run churn` runs it: the wall time of the whole run, which must
/// also pass. `--smoke` cuts it to its first 200 steps.
enum ChurnBenchmark {
    static func run(_ book: FigureBook) throws -> String {
        let scenario = try ScenarioLibrary.load("churn", executable: CommandLine.arguments[0])
        // The work directory is the runner's own (`ScenarioScratch`, in memory where there is
        // some), as for `ubiq scenario run churn`; it is removed after a pass.
        var options = ScenarioOptions()
        if book.options.smoke { options.steps = 200 }
        var result: ScenarioResult?
        let cpuBefore = processCPUSeconds()
        let time = try seconds { result = try ScenarioRunner.run(scenario, options: options) }
        let cpu = processCPUSeconds() - cpuBefore
        guard let result, result.passed else {
            throw BenchmarkError("the churn scenario failed: \(result?.violations.map(\.description).joined(separator: "; ") ?? "no result")")
        }
        book.sheet.record("churn_seconds", time, "seconds of wall time for the built-in churn scenario")
        book.sheet.record("churn_cpu_seconds", cpu, "CPU seconds (user and system) of the churn run, which a busy machine does not inflate")
        var table = MarkdownTable("Churn scenario", ["devices", "steps", "simulated time", "wall time", "CPU time", "outcome"])
        table.add(["\(result.devices.count)", Measurement.grouped(result.steps), "\(Int(result.simulatedSeconds / 3600)) h",
                   String(format: "%.1f s", time), String(format: "%.1f s", cpu), "passed"])
        table.notes = ["`ScenarioRunner.run` of the built-in scenario with its own seed, in simulated time (what `ubiq scenario run churn` does)."]
        return table.text
    }
}

/// CPU seconds (user and system) this process has used.
private func processCPUSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
}
