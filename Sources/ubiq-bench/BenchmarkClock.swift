import Foundation

/// Timing helpers: every figure is the median of several runs, reported with min and max.
struct Measurement {
    let samples: [Double]

    var median: Double { samples.sorted()[samples.count / 2] }
    var min: Double { samples.min() ?? 0 }
    var max: Double { samples.max() ?? 0 }

    /// `12.3 ms (11.9–13.0)`
    var text: String { "\(Self.ms(median)) (\(Self.ms(min))–\(Self.ms(max)))" }

    static func ms(_ seconds: Double) -> String { String(format: "%.1f ms", seconds * 1000) }

    /// Runs `body` `runs` times; `body` returns the seconds of the part it measures.
    static func run(_ runs: Int, _ body: () throws -> Double) rethrows -> Measurement {
        Measurement(samples: try (0..<Swift.max(1, runs)).map { _ in try body() })
    }
}

/// Seconds taken by `body`.
func seconds(_ body: () throws -> Void) rethrows -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    try body()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
}

/// A fresh temporary directory, removed by `cleanUp`.
struct ScratchDirectory {
    let path = NSTemporaryDirectory() + "ubiq-bench-" + UUID().uuidString

    init() throws { try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true) }

    func cleanUp() { try? FileManager.default.removeItem(atPath: path) }
}
