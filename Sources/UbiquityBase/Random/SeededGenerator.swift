import Foundation

/// SplitMix64: a small seeded generator, so a scenario or a random test replays exactly from
/// its seed. Scenarios draw every fault and every random step from it; the tests use it too.
public struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// The seeds a randomized test runs: its fixed list — never drawn at random, so `swift test`
    /// runs the same cases every time — plus the seeds `UBIQUITY_TEST_SEED` names (one, or
    /// several separated by commas) to replay a failure or explore; with `UBIQUITY_TEST_SEED_ONLY=1`
    /// only those (`scripts/fuzz-tests.sh`). Tests print their seed in every failure message.
    public static func testSeeds(_ fixed: [UInt64]) -> [UInt64] {
        let environment = ProcessInfo.processInfo.environment
        let extra = (environment["UBIQUITY_TEST_SEED"] ?? "").split(separator: ",")
            .compactMap { UInt64($0.trimmingCharacters(in: .whitespaces)) }
        if environment["UBIQUITY_TEST_SEED_ONLY"] == "1" && !extra.isEmpty { return extra }
        return fixed + extra.filter { !fixed.contains($0) }
    }
}
