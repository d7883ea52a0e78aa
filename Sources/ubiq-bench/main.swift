import Foundation

// Entry point of the release-mode benchmark; see Docs/Benchmarks.md.
let arguments = Array(CommandLine.arguments.dropFirst())
let smoke = arguments.contains("--smoke")
let suites = arguments.filter { !$0.hasPrefix("--") }
if suites.isEmpty || suites.contains("plist") {
    print(PlistBenchmarks.run(smoke: smoke))
}
