import Foundation

/// Timing helpers: every figure is the median of several runs, reported with min and max.
struct Measurement {
    let samples: [Double]

    var median: Double { samples.sorted()[samples.count / 2] }
    var min: Double { samples.min() ?? 0 }
    var max: Double { samples.max() ?? 0 }

    /// `12.3 ms (11.9–13.0)`; one run shows no range.
    var text: String {
        samples.count == 1 ? Self.ms(median) : "\(Self.ms(median)) (\(Self.number(min * 1000))–\(Self.number(max * 1000)))"
    }

    /// The same figure per item (e.g. per transaction when a run did `count` of them).
    func per(_ count: Int) -> Measurement { Measurement(samples: samples.map { $0 / Double(Swift.max(1, count)) }) }

    /// Items per second at the median (none when counting instructions).
    func rate(_ count: Int) -> String { InstructionCounter.isCounting ? "—" : Self.grouped(Int((Double(count) / Swift.max(median, 1e-9)).rounded())) }

    /// Under `--instructions` a "second" is 10⁹ instructions, so a figure in ms is millions of them.
    static func ms(_ seconds: Double) -> String { number(seconds * 1000) + (InstructionCounter.isCounting ? " M instr" : " ms") }

    /// Three significant digits at most below 1,000, whole and grouped above.
    static func number(_ value: Double) -> String {
        switch value {
        case ..<10: return String(format: "%.2f", value)
        case ..<100: return String(format: "%.1f", value)
        case ..<1000: return String(format: "%.0f", value)
        default: return grouped(Int(value.rounded()))
        }
    }

    static func grouped(_ value: Int) -> String {
        let digits = String(value.magnitude)
        var result = ""
        for (index, digit) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 { result += "," }
            result.append(digit)
        }
        return (value < 0 ? "-" : "") + result
    }

    /// Runs `body` `runs` times; `body` returns the seconds of the part it measures.
    static func run(_ runs: Int, _ body: () throws -> Double) rethrows -> Measurement {
        Measurement(samples: try (0..<Swift.max(1, runs)).map { _ in try body() })
    }
}

/// How Ubiquity compares with its reference: the time ratio and the share of the reference's speed.
struct Comparison {
    let ours: Measurement
    let reference: Measurement

    /// `2.4×` Ubiquity's median time over the reference's.
    var times: String { String(format: "%.1f×", ours.median / Swift.max(reference.median, 1e-12)) }
    /// `42 %` of the reference's speed.
    var share: String { String(format: "%.0f %%", 100 * reference.median / Swift.max(ours.median, 1e-12)) }
}

/// Seconds taken by `body`; under `--instructions`, the instructions it executed in units of 10⁹,
/// so every ratio built from these figures becomes a ratio of instruction counts.
func seconds(_ body: () throws -> Void) rethrows -> Double {
    if InstructionCounter.isCounting { return Double(try InstructionCounter.count(body)) / 1e9 }
    let start = DispatchTime.now().uptimeNanoseconds
    try body()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
}

/// A fresh temporary directory, removed by `cleanUp`.
struct ScratchDirectory {
    let path: String

    /// `base`: the folder to make it in (with a trailing slash); `TMPDIR` by default.
    init(in base: String = NSTemporaryDirectory()) throws {
        path = base + "ubiq-bench-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    func cleanUp() { try? FileManager.default.removeItem(atPath: path) }
}

/// CPU seconds this thread used in `body` (or, under `--instructions`, its instructions in units
/// of 10⁹). The codec comparisons are CPU-bound and run on one thread: their CPU time holds on
/// a busy machine, where wall time counts the waits for a core.
func threadCPUSeconds(_ body: () throws -> Void) rethrows -> Double {
    if InstructionCounter.isCounting { return Double(try InstructionCounter.count(body)) / 1e9 }
    let start = threadCPUSeconds()
    try body()
    return threadCPUSeconds() - start
}

private func threadCPUSeconds() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now)
    return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
}
