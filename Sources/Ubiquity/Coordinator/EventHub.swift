import Foundation

/// Delivers events, in the order posted, to every async stream and callback subscribed.
final class EventHub<Event: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var continuations: [UUID: AsyncStream<Event>.Continuation] = [:]
    private var handlers: [@Sendable (Event) -> Void] = []
    private let tap: (@Sendable (Event) -> Void)?

    /// `tap` sees every event first (the coordinator logs transitions there).
    init(tap: (@Sendable (Event) -> Void)? = nil) {
        self.tap = tap
    }

    func stream() -> AsyncStream<Event> {
        let (stream, continuation) = AsyncStream<Event>.makeStream()
        let id = UUID()
        lock.withLock { continuations[id] = continuation }
        continuation.onTermination = { [weak self] _ in
            guard let self else { return }
            self.lock.withLock { self.continuations[id] = nil }
        }
        return stream
    }

    func observe(_ handler: @escaping @Sendable (Event) -> Void) {
        lock.withLock { handlers.append(handler) }
    }

    /// Posts under the lock, so events from several threads reach every subscriber in one order.
    func post(_ event: Event) {
        lock.withLock {
            tap?(event)
            for continuation in continuations.values { continuation.yield(event) }
            for handler in handlers { handler(event) }
        }
    }

    func finish() {
        for continuation in lock.withLock({ Array(continuations.values) }) { continuation.finish() }
    }
}
