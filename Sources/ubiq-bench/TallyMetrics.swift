import CoreMetrics
import Synchronization

/// The cheapest real swift-metrics backend: every counter and timer adds into one tally under a
/// lock, as a backend that aggregates in memory (swift-prometheus) does. The observed import
/// measures what the library's own reports cost with a backend plugged in, not a backend's work.
final class TallyMetricsFactory: MetricsFactory, Sendable {
    private let tally = Mutex<Int64>(0)

    /// What every counter and timer was told, summed (so the work cannot be optimised away).
    var total: Int64 { tally.withLock { $0 } }

    func makeCounter(label: String, dimensions: [(String, String)]) -> any CounterHandler { TallyHandler(self) }
    func makeTimer(label: String, dimensions: [(String, String)]) -> any TimerHandler { TallyHandler(self) }
    func makeFloatingPointCounter(label: String, dimensions: [(String, String)]) -> any FloatingPointCounterHandler { TallyHandler(self) }
    func makeRecorder(label: String, dimensions: [(String, String)], aggregate: Bool) -> any RecorderHandler { TallyHandler(self) }
    func destroyCounter(_ handler: any CounterHandler) {}
    func destroyFloatingPointCounter(_ handler: any FloatingPointCounterHandler) {}
    func destroyRecorder(_ handler: any RecorderHandler) {}
    func destroyTimer(_ handler: any TimerHandler) {}

    fileprivate func add(_ amount: Int64) { tally.withLock { $0 &+= amount } }
}

private final class TallyHandler: CounterHandler, TimerHandler, FloatingPointCounterHandler, RecorderHandler, Sendable {
    let factory: TallyMetricsFactory
    init(_ factory: TallyMetricsFactory) { self.factory = factory }
    func increment(by amount: Int64) { factory.add(amount) }
    func increment(by amount: Double) { factory.add(Int64(amount)) }
    func recordNanoseconds(_ duration: Int64) { factory.add(duration) }
    func record(_ value: Int64) { factory.add(value) }
    func record(_ value: Double) { factory.add(Int64(value)) }
    func reset() {}
}
