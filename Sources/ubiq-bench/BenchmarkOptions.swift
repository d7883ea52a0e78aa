/// What one run of `ubiq-bench` measures, parsed from its arguments:
/// `ubiq-bench [SUITE…] [--smoke] [--large]`.
struct BenchmarkOptions {
    static let suites = ["save", "import", "join", "maintenance", "scaling", "logsize", "latency", "plist", "encryption", "churn"]
    /// The suites whose comparisons are CPU-bound, and so can be counted in instructions.
    static let countable = ["save", "import", "join", "maintenance", "plist"]
    static let usage = "usage: ubiq-bench [\(suites.joined(separator: "|"))]… [--smoke] [--large] [--json] [--instructions]"

    /// The suites to run, in the order of `suites`.
    var selected: [String] = suites
    /// Tiny sizes and one run: proves every suite works (CI), gives no figures.
    var smoke = false
    /// Adds the 1,000,000-object rows to the scaling and join suites (minutes of work).
    var large = false
    /// Print the usage and run nothing.
    var help = false
    /// Print the headline figures as one JSON object on stdout (the tables go to stderr).
    var json = false
    /// Count instructions instead of timing (under callgrind, `InstructionRun`): the CPU-bound
    /// suites only, at 10,000 objects, one run each.
    var instructions = false

    init(_ arguments: [String]) throws(BenchmarkError) {
        var named: [String] = []
        for argument in arguments {
            switch argument {
            case "--smoke": smoke = true
            case "--large": large = true
            case "--json": json = true
            case "--instructions": instructions = true
            case "-h", "--help": help = true
            case _ where argument.hasPrefix("-"): throw BenchmarkError("unknown option '\(argument)' (\(Self.usage))")
            case _ where !Self.suites.contains(argument):
                throw BenchmarkError("unknown suite '\(argument)' (known: \(Self.suites.joined(separator: ", ")))")
            default: named.append(argument)
            }
        }
        if smoke && large { throw BenchmarkError("--smoke and --large contradict each other") }
        if instructions && large { throw BenchmarkError("--instructions counts at 10,000 objects; --large does not apply") }
        if instructions, let other = named.first(where: { !Self.countable.contains($0) }) {
            throw BenchmarkError("--instructions counts the CPU-bound suites (\(Self.countable.joined(separator: ", "))); '\(other)' measures waits, not work")
        }
        if !named.isEmpty {
            selected = Self.suites.filter(named.contains)
        } else if instructions {
            selected = Self.countable
        }
    }

    /// How many times each figure is measured (the median is reported): fewer at a million
    /// objects. Five at 100k, not three: on a shared virtual machine the raw
    /// reference alone spread by a third from one run to the next.
    func runs(objects: Int) -> Int {
        smoke || instructions ? 1 : objects >= 1_000_000 ? 3 : 5
    }

    /// How many times the small-size suites repeat a figure: once at smoke sizes, and once when
    /// counting instructions, which come out the same every time (and each count costs callgrind
    /// a dump).
    var timedRuns: Int { smoke || instructions ? 1 : 5 }

    /// The object count of the headline tables (import, join, roll).
    var mainSize: Int { smoke ? 1_000 : instructions ? 10_000 : 100_000 }

    /// The log files of the status and damaged-logs rows of the maintenance table.
    var statusFiles: Int { smoke ? 100 : instructions ? 1_000 : 10_000 }

    /// The log counts of doctor's scaling rows: doublings, up to 100,000 with `--large`.
    var doctorSizes: [Int] {
        smoke ? [50, 100] : instructions ? [500, 1_000] : large ? [1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 64_000, 100_000] : [1_000, 2_000, 4_000, 8_000]
    }

    /// The object counts of the scaling table.
    var scalingSizes: [Int] { smoke ? [500, 1_000] : large ? [10_000, 100_000, 1_000_000] : [10_000, 100_000] }

    /// The peer counts of the scaling table.
    var peerCounts: [Int] { smoke ? [2, 3] : [2, 8, 32] }
}

/// A benchmark that cannot run as asked; printed as one line.
struct BenchmarkError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
