import Foundation

/// Where a peer reads the time for its stamps, transaction dates, receipts, baselines and
/// garbage collection: the system clock, or a scenario's simulated clock. A device whose clock
/// is wrong is modelled with `skewed(by:)`.
public struct WallClock: Sendable {
    private let read: @Sendable () -> Date

    public init(_ now: @escaping @Sendable () -> Date) { read = now }

    /// The machine's clock.
    public static let system = WallClock { Date() }

    public var now: Date { read() }

    /// This clock, `seconds` ahead (negative: behind).
    public func skewed(by seconds: Double) -> WallClock {
        guard seconds != 0 else { return self }
        let read = self.read
        return WallClock { read().addingTimeInterval(seconds) }
    }
}
