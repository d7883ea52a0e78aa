import Dispatch
import Synchronization

/// Delivers `SyncActivity` reports to callbacks and async streams. Callbacks run on a serial
/// queue of the hub's own, in the order posted, so none is ever called while the work that
/// posts holds a lock (the sync lock, the store's); the work never waits for a callback.
package final class ActivityHub: Sendable {
    private struct Subscribers: ~Copyable {
        var handlers: [Int: @Sendable (SyncActivity) -> Void] = [:]
        var continuations: [Int: AsyncStream<SyncActivity>.Continuation] = [:]
        var nextToken = 0
        var nextActivity = 0
        var finished = false
    }

    private let subscribers = Mutex(Subscribers())
    private let delivery = DispatchQueue(label: "ubiquity.activity")
    private let deliveryKey = DispatchSpecificKey<Bool>()

    package init() {
        delivery.setSpecific(key: deliveryKey, value: true)
    }

    /// A reporter for one activity of `kind`, or `nil` when nobody listens: unobserved work
    /// then costs one look at the subscribers.
    /// `kind` is asked only then.
    package func reporter(_ kind: @autoclosure () throws -> SyncActivity.Kind) rethrows -> ActivityReporter? {
        let id: Int? = subscribers.withLock { state in
            guard !state.finished, !state.handlers.isEmpty || !state.continuations.isEmpty else { return nil }
            state.nextActivity += 1
            return state.nextActivity
        }
        guard let id else { return nil }
        return ActivityReporter(kind: try kind(), id: id, hub: self)
    }

    /// The id of the last activity begun: those begun from now on have larger ones.
    package var lastActivityID: Int { subscribers.withLock { $0.nextActivity } }

    /// Calls `handler` with every report from now on until the observation is cancelled.
    package func observe(_ handler: @escaping @Sendable (SyncActivity) -> Void) -> ActivityObservation {
        let token = subscribers.withLock { state in
            state.nextToken += 1
            state.handlers[state.nextToken] = handler
            return state.nextToken
        }
        return ActivityObservation { [weak self] in self?.subscribers.withLock { _ = $0.handlers.removeValue(forKey: token) } }
    }

    /// The reports from now on; the stream ends at `finish()`.
    package func stream() -> AsyncStream<SyncActivity> {
        let (stream, continuation) = AsyncStream<SyncActivity>.makeStream()
        let token: Int? = subscribers.withLock { state in
            guard !state.finished else { return nil }
            state.nextToken += 1
            state.continuations[state.nextToken] = continuation
            return state.nextToken
        }
        guard let token else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in self?.subscribers.withLock { _ = $0.continuations.removeValue(forKey: token) } }
        return stream
    }

    /// Queues `activity` for every subscriber of this moment. Reporters call it under their own
    /// lock, so reports of one activity keep their order; nothing here waits.
    func post(_ activity: SyncActivity) {
        subscribers.withLock { state in
            for continuation in state.continuations.values { continuation.yield(activity) }
            guard !state.handlers.isEmpty else { return }
            let handlers = state.handlers.sorted { $0.key < $1.key }.map(\.value)
            delivery.async { for handler in handlers { handler(activity) } }
        }
    }

    /// Returns once every report posted so far reached the callbacks (at once on the delivery queue).
    package func drain() {
        if DispatchQueue.getSpecific(key: deliveryKey) == true { return }
        delivery.sync {}
    }

    /// Delivers what was posted and ends the streams; later work reports nothing.
    package func finish() {
        let continuations = subscribers.withLock { state in
            state.finished = true
            defer { state.continuations = [:] }
            return Array(state.continuations.values)
        }
        drain()
        for continuation in continuations { continuation.finish() }
    }
}

/// A subscription to sync activity (`observeActivity`): reports reach its handler until `cancel()`.
public final class ActivityObservation: Sendable {
    private let cancellation: Mutex<(@Sendable () -> Void)?>

    init(_ cancel: @escaping @Sendable () -> Void) {
        cancellation = Mutex(cancel)
    }

    /// Stops the reports to this handler; one already queued may still arrive. Calling it again does nothing.
    public func cancel() {
        let cancel = cancellation.withLock { value in
            defer { value = nil }
            return value
        }
        cancel?()
    }
}
