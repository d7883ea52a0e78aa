// Placeholder until the plist benchmark lands on this branch.
enum PlistBenchmarks {
    static func run(smoke: Bool) -> String { "" }
}
