import Foundation

// Entry point of the release-mode benchmark; see Docs/Benchmarks.md.
//   ubiq-bench [save|import|join|maintenance|scaling|logsize|latency|plist|encryption|churn]… [--smoke] [--large] [--json]
let options: BenchmarkOptions
do {
    options = try BenchmarkOptions(Array(CommandLine.arguments.dropFirst()))
} catch {
    FileHandle.standardError.write(Data("ubiq-bench: error: \(error)\n".utf8))
    exit(2)
}
if options.help {
    print(BenchmarkOptions.usage + "\nSuites run in that order; every suite when none is named. See Docs/Benchmarks.md.")
    exit(0)
}
// `--instructions`: the same command again under callgrind, which counts instead of timing.
if options.instructions && !InstructionCounter.isCounting {
    do {
        exit(try InstructionRun.relaunch(Array(CommandLine.arguments.dropFirst())))
    } catch {
        FileHandle.standardError.write(Data("ubiq-bench: error: \(error)\n".utf8))
        exit(2)
    }
}
#if DEBUG
let build = "debug build: figures are meaningless"
#else
let build = "release build"
#endif
/// The tables: on stdout, or on stderr under `--json`, whose object is all stdout holds.
func report(_ text: String) {
    if options.json {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    } else {
        print(text)
    }
}
report("# ubiq-bench\(options.smoke ? " (smoke: tiny sizes, one run)" : options.large ? " --large" : "")\(options.instructions ? " --instructions: figures are instruction counts (callgrind), not times" : "")\n")
report("\(ProcessInfo.processInfo.processorCount) cores, \(ProcessInfo.processInfo.physicalMemory >> 30) GiB, \(ProcessInfo.processInfo.operatingSystemVersionString), \(build)\n")
let book = FigureBook(options: options)
let started = Date()
for suite in options.selected {
    let suiteStart = Date()
    do {
        let text: String
        switch suite {
        case "save": text = try SaveBenchmarks.run(book)
        case "import": text = try ImportBenchmarks.run(book)
        case "join": text = try JoinBenchmarks.run(book)
        case "maintenance": text = try MaintenanceBenchmarks.run(book)
        case "scaling": text = try ScalingBenchmarks.run(book)
        case "logsize": text = try LogSizeBenchmarks.run(options)
        case "latency": text = try LatencyBenchmarks.run(book)
        case "encryption": text = try EncryptionBenchmarks.run(options)
        case "churn": text = try ChurnBenchmark.run(book)
        default: text = PlistBenchmarks.run(book)
        }
        report(text)
        fflush(nil)  // every stream: the suite's table before its timing line on stderr
        FileHandle.standardError.write(Data("ubiq-bench: \(suite) took \(Int(Date().timeIntervalSince(suiteStart))) s\n".utf8))
    } catch {
        FileHandle.standardError.write(Data("ubiq-bench: error: \(suite): \(error)\n".utf8))
        exit(1)
    }
}
report("Total: \(Int(Date().timeIntervalSince(started))) s")
if options.json { print(book.sheet.json) }
