import Foundation
import Synchronization

/// Delivers events, in the order posted, to every async stream and callback subscribed.
final class EventHub<Event: Sendable>: Sendable {
    private struct Subscribers {
        var continuations: [UUID: AsyncStream<Event>.Continuation] = [:]
        var handlers: [@Sendable (Event) -> Void] = []
    }
    private let subscribers = Mutex(Subscribers())
    private let tap: (@Sendable (Event) -> Void)?

    /// `tap` sees every event first (the coordinator logs transitions there).
    init(tap: (@Sendable (Event) -> Void)? = nil) {
        self.tap = tap
    }

    func stream() -> AsyncStream<Event> {
        let (stream, continuation) = AsyncStream<Event>.makeStream()
        let id = UUID()
        subscribers.withLock { $0.continuations[id] = continuation }
        continuation.onTermination = { [weak self] _ in
            self?.subscribers.withLock { $0.continuations[id] = nil }
        }
        return stream
    }

    func observe(_ handler: @escaping @Sendable (Event) -> Void) {
        subscribers.withLock { $0.handlers.append(handler) }
    }

    /// Posts under the lock, so events from several threads reach every subscriber in one order.
    func post(_ event: Event) {
        subscribers.withLock { subscribers in
            tap?(event)
            for continuation in subscribers.continuations.values { continuation.yield(event) }
            for handler in subscribers.handlers { handler(event) }
        }
    }

    func finish() {
        for continuation in subscribers.withLock({ Array($0.continuations.values) }) { continuation.finish() }
    }
}
