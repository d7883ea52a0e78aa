import Foundation
import Ubiquity
import Synchronization

/// A scenario's time: it moves only when the scenario waits, so a run replays exactly for a
/// seed whatever the machine's speed. Devices read it through `wallClock(skew:)`.
public final class SimulatedClock: Sendable {
    /// Scenarios start on iOS 7's release day, 2013-09-18 00:00 UTC.
    public static let epoch: Double = 1_379_462_400

    private let elapsed = Mutex<Double>(0)

    public init() {}

    /// Seconds since the scenario started.
    public var seconds: Double { elapsed.withLock { $0 } }

    public var now: Date { Date(timeIntervalSince1970: Self.epoch + seconds) }

    /// Moves time forward to `seconds` since the start (never backward).
    public func advance(to seconds: Double) { elapsed.withLock { $0 = max($0, seconds) } }

    /// A device's clock: this time, off by `skew` seconds.
    public func wallClock(skew: Double = 0) -> WallClock {
        WallClock { [self] in now }.skewed(by: skew)
    }
}
