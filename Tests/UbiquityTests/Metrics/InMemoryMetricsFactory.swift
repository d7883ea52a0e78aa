import CoreMetrics
import Synchronization

/// A swift-metrics backend that keeps what it is told, for one test: handed to a peer's
/// configuration, so tests running in parallel never share the process-wide bootstrap.
final class InMemoryMetricsFactory: MetricsFactory, Sendable {
    /// A metric's label with its dimensions, as `label[key=value,…]`.
    typealias Key = String

    private let counters = Mutex<[Key: Int64]>([:])
    private let timers = Mutex<[Key: [Int64]]>([:])

    static func key(_ label: String, _ dimensions: [(String, String)]) -> Key {
        label + "[" + dimensions.map { "\($0.0)=\($0.1)" }.joined(separator: ",") + "]"
    }

    /// The sum of a counter's increments (0 if never made or incremented).
    func counter(_ label: String, store: String) -> Int64 { counters.withLock { $0[Self.key(label, [("store", store)])] ?? 0 } }
    /// The durations a timer recorded, in nanoseconds.
    func timings(_ label: String, store: String) -> [Int64] { timers.withLock { $0[Self.key(label, [("store", store)])] ?? [] } }
    /// Every counter and timer made, by key.
    var made: Set<Key> { counters.withLock { Set($0.keys) }.union(timers.withLock { Set($0.keys) }) }

    func makeCounter(label: String, dimensions: [(String, String)]) -> any CounterHandler {
        let key = Self.key(label, dimensions)
        counters.withLock { $0[key] = $0[key] ?? 0 }
        return CounterBox { amount in self.counters.withLock { $0[key, default: 0] += amount } }
    }

    func makeTimer(label: String, dimensions: [(String, String)]) -> any TimerHandler {
        let key = Self.key(label, dimensions)
        timers.withLock { $0[key] = $0[key] ?? [] }
        return TimerBox { duration in self.timers.withLock { $0[key, default: []].append(duration) } }
    }

    func makeFloatingPointCounter(label: String, dimensions: [(String, String)]) -> any FloatingPointCounterHandler {
        preconditionFailure("the peer records no floating-point counter")
    }

    func makeRecorder(label: String, dimensions: [(String, String)], aggregate: Bool) -> any RecorderHandler {
        preconditionFailure("the peer records no recorder")
    }

    func destroyCounter(_ handler: any CounterHandler) {}
    func destroyFloatingPointCounter(_ handler: any FloatingPointCounterHandler) {}
    func destroyRecorder(_ handler: any RecorderHandler) {}
    func destroyTimer(_ handler: any TimerHandler) {}
}

private final class CounterBox: CounterHandler, Sendable {
    let add: @Sendable (Int64) -> Void
    init(_ add: @escaping @Sendable (Int64) -> Void) { self.add = add }
    func increment(by amount: Int64) { add(amount) }
    func reset() {}
}

private final class TimerBox: TimerHandler, Sendable {
    let record: @Sendable (Int64) -> Void
    init(_ record: @escaping @Sendable (Int64) -> Void) { self.record = record }
    func recordNanoseconds(_ duration: Int64) { record(duration) }
}
