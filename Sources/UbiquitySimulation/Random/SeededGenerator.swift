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

    /// The seed from `UBIQUITY_TEST_SEED`, or a fresh one; tests print it in every failure message.
    public static func seedFromEnvironment(default fallback: UInt64 = UInt64.random(in: 1...UInt64.max)) -> UInt64 {
        ProcessInfo.processInfo.environment["UBIQUITY_TEST_SEED"].flatMap(UInt64.init) ?? fallback
    }
}
