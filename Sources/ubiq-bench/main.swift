import Foundation

// Entry point of the release-mode benchmark; see Docs/Benchmarks.md.
//   ubiq-bench [import] [plist] [--smoke]
let arguments = Array(CommandLine.arguments.dropFirst())
let smoke = arguments.contains("--smoke")
let suites = arguments.filter { !$0.hasPrefix("--") }
let known = ["import", "plist"]
if let unknown = suites.first(where: { !known.contains($0) }) {
    FileHandle.standardError.write(Data("ubiq-bench: error: unknown suite '\(unknown)' (known: \(known.joined(separator: ", ")))\n".utf8))
    exit(2)
}
print("# ubiq-bench\(smoke ? " (smoke: tiny sizes, one run)" : "")\n")
print("Machine: \(ProcessInfo.processInfo.processorCount) cores, \(ProcessInfo.processInfo.operatingSystemVersionString)\n")
do {
    if suites.isEmpty || suites.contains("import") { print(try ImportBenchmarks.run(smoke: smoke) + "\n") }
    if suites.isEmpty || suites.contains("plist") { print(PlistBenchmarks.run(smoke: smoke)) }
} catch {
    FileHandle.standardError.write(Data("ubiq-bench: error: \(error)\n".utf8))
    exit(1)
}
