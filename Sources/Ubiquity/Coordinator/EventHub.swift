import Dispatch
import Foundation
import Synchronization

/// Delivers events, in the order posted, to every async stream and callback subscribed.
///
/// Handlers are called with no lock held, so one may subscribe, post or read what posted the
/// event. One thread delivers at a time: a post made while another thread delivers is queued
/// and waits until its event was delivered (a will-change event still reaches every handler
/// before its post returns); a post from inside a handler is queued and delivered after it.
final class EventHub<Event: Sendable>: Sendable {
    private struct Subscribers {
        var continuations: [UUID: AsyncStream<Event>.Continuation] = [:]
        var handlers: [@Sendable (Event) -> Void] = []
    }
    /// An event waiting for the delivering thread, and the semaphore its poster waits on.
    private struct Queued {
        let event: Event
        let delivered: DispatchSemaphore?
    }
    private struct Delivery {
        var queue: [Queued] = []
        /// The thread delivering, while one does.
        var deliverer: pthread_t?
    }
    /// What a post does: deliver the queue itself, leave its event to the handler that posted
    /// it, or wait for the thread delivering.
    private enum PostRole { case deliver, queued, wait(DispatchSemaphore) }
    private let subscribers = Mutex(Subscribers())
    private let delivery = Mutex(Delivery())
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

    /// Delivers `event` after every event posted before it, and returns once it was delivered
    /// (when posted from inside a handler: once it is queued).
    func post(_ event: Event) {
        let me = pthread_self()
        let role: PostRole = delivery.withLock { delivery in
            guard let deliverer = delivery.deliverer else {
                delivery.deliverer = me
                delivery.queue.append(Queued(event: event, delivered: nil))
                return .deliver
            }
            if pthread_equal(deliverer, me) != 0 {
                delivery.queue.append(Queued(event: event, delivered: nil))
                return .queued
            }
            let delivered = DispatchSemaphore(value: 0)
            delivery.queue.append(Queued(event: event, delivered: delivered))
            return .wait(delivered)
        }
        switch role {
        case .deliver: deliverQueue()
        case .queued: break
        case let .wait(delivered): delivered.wait()
        }
    }

    /// Delivers queued events, oldest first, until none is left; then no thread delivers.
    private func deliverQueue() {
        while let next = delivery.withLock({ delivery -> Queued? in
            guard !delivery.queue.isEmpty else {
                delivery.deliverer = nil
                return nil
            }
            return delivery.queue.removeFirst()
        }) {
            let (continuations, handlers) = subscribers.withLock { (Array($0.continuations.values), $0.handlers) }
            tap?(next.event)
            for continuation in continuations { continuation.yield(next.event) }
            for handler in handlers { handler(next.event) }
            next.delivered?.signal()
        }
    }

    func finish() {
        for continuation in subscribers.withLock({ Array($0.continuations.values) }) { continuation.finish() }
    }
}
