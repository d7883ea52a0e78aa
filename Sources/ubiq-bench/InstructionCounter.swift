import CCallgrind
import Foundation
import Synchronization

/// Instruction counts of measured regions, for `ubiq-bench --instructions`: the bench runs
/// itself under callgrind, and each region zeroes callgrind's counters, runs, and has them
/// written to a dump file that is read back. This VM exposes no hardware counters to `perf`;
/// callgrind's counts are the same on an idle and on a busy machine, so their ratios hold where
/// wall-time ratios do not (Docs/Benchmarks.md, "What the figures mean").
enum InstructionCounter {
    /// The dump files' prefix (`<prefix>.1`, `<prefix>.2`, … one per region), set by the run
    /// that started callgrind (`InstructionRun`).
    static let environmentKey = "UBIQ_BENCH_CALLGRIND_OUT"

    /// True inside the run callgrind executes: regions are counted, not timed.
    static let isCounting = ubiq_running_on_valgrind() != 0 && ProcessInfo.processInfo.environment[environmentKey] != nil

    /// How many regions were dumped so far: callgrind numbers its dump files from 1.
    private static let dumps = Mutex(0)

    /// Instructions `body` executed, every thread's (it may start threads of its own). A dump
    /// that cannot be read ends the run with its reason: no figure would mean anything.
    static func count(_ body: () throws -> Void) rethrows -> Int {
        ubiq_callgrind_zero_stats()
        try body()
        ubiq_callgrind_dump_stats("ubiq-bench region")
        let number = dumps.withLock { dumps in
            dumps += 1
            return dumps
        }
        do {
            return try instructions(inDump: number)
        } catch {
            FileHandle.standardError.write(Data("ubiq-bench: error: \(error)\n".utf8))
            exit(1)
        }
    }

    /// The `totals:` line of dump `number` (only the Ir event is collected); the file is removed.
    private static func instructions(inDump number: Int) throws(BenchmarkError) -> Int {
        let path = "\(ProcessInfo.processInfo.environment[environmentKey] ?? "").\(number)"
        defer { unlink(path) }
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { throw BenchmarkError("callgrind wrote no dump at \(path)") }
        for line in text.split(separator: "\n") where line.hasPrefix("totals:") || line.hasPrefix("summary:") {
            if let value = line.split(separator: " ").last.flatMap({ Int($0) }) { return value }
        }
        throw BenchmarkError("callgrind's dump \(path) has no totals line")
    }
}
