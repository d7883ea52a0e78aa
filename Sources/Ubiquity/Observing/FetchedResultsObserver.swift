import Foundation
import Synchronization
import UbiquityCore

/// A fetch whose result set is kept current (Core Data's `NSFetchedResultsController`): it
/// holds the saved objects a `FetchRequest` matches, in its order, and after every change to
/// the store — a save by any context, an import from other peers, a baseline joined, the store
/// replaced at a transition — fetches again and reports what changed as inserts, deletes,
/// updates and moves with their indexes (`FetchedResultsChange`). Changes that leave the
/// results as they were are not reported.
///
/// Reports go, in order, to every `changeStream()` and `observe` subscriber, on the thread that
/// made the change (a context's saving thread, the sync's thread), as the coordinator's events
/// do — or, when a report is being delivered already, by that delivery right after it (so a
/// handler may save, and its own save's report follows its return). `results` equals a fresh fetch once the report of the last change was made. It follows
/// the store it watches when that store is handed over (the fallback's to the account store
/// after the initial import; an account switch), reporting the difference as `storeChanged`.
/// `cancel()` stops it; so does the close of its store (its coordinator's `close()`), after which
/// `refresh()` throws `StoreError.closed`.
public final class FetchedResultsObserver: Sendable {
    public let request: FetchRequest
    private let family: Set<String>
    private let hub = EventHub<FetchedResultsChange>()
    private let state: Mutex<State>

    /// What the observer follows and holds, and the reports made and not yet delivered.
    private struct State {
        var store: PersistentStore
        var subscription: UUID?
        var held: [ObjectSnapshot]
        var failure: (any Error)?
        var pending: [FetchedResultsChange] = []
        /// Whether a thread is delivering `pending`.
        var delivering = false
    }

    /// Fetches `request` from `store` and keeps the results current from now on.
    public init(store: PersistentStore, request: FetchRequest) throws {
        self.request = request
        let entity = try store.model.entity(named: request.entity)
        family = request.includesSubentities ? Set(store.model.family(of: entity.name)) : [entity.name]
        state = Mutex(State(store: store, held: try store.fetch(request)))
        let subscription = subscribe(to: store)
        state.withLock { $0.subscription = subscription }
    }

    deinit { cancel() }

    /// The saved objects the request matches now, in its order: their IDs, values and targets
    /// are a fresh fetch's (a row `version` may lag where nothing visible changed).
    public var results: [ObjectSnapshot] { state.withLock { $0.held } }

    /// Their global IDs.
    public var ids: [GlobalID] { results.map(\.id) }

    /// What the last automatic fetch threw (the store could not be read), if it failed; the
    /// results then stay as they were until a later change or `refresh()` succeeds.
    public var lastError: (any Error)? { state.withLock { $0.failure } }

    /// A stream of the changes from now on; it ends at `cancel()`.
    public func changeStream() -> AsyncStream<FetchedResultsChange> { hub.stream() }

    /// Calls `handler` with every change from now on, on the thread that made it, in order.
    public func observe(_ handler: @escaping @Sendable (FetchedResultsChange) -> Void) { hub.observe(handler) }

    /// Fetches again now and reports the difference (`nil` when there is none).
    @discardableResult
    public func refresh() throws -> FetchedResultsChange? {
        if let failure = state.withLock({ $0.failure }), case StoreError.closed? = failure as? StoreError { throw failure }
        return try update(cause: .refreshed)
    }

    /// Stops following the store and ends the change streams.
    public func cancel() {
        state.withLock { state in
            if let subscription = state.subscription { state.store.changeObservers.remove(subscription) }
            state.subscription = nil
        }
        hub.finish()
    }

    private func subscribe(to store: PersistentStore) -> UUID {
        store.changeObservers.add { [weak self] change in self?.storeChanged(change) }
    }

    private func storeChanged(_ change: StoreChange) {
        let cause: FetchedResultsChange.Cause
        switch change {
        case let .committed(changes, local):
            guard touchesFamily(changes) else { return }
            cause = local ? .saved : .imported
        case let .joined(changes):
            guard touchesFamily(changes) else { return }
            cause = .imported
        case .reset:
            cause = .storeChanged
        case .closed:
            state.withLock { $0.failure = StoreError.closed }
            cancel()
            return
        case let .handedOver(successor):
            state.withLock { state in
                guard let subscription = state.subscription else { return }
                state.store.changeObservers.remove(subscription)
                state.store = successor
                state.subscription = subscribe(to: successor)
            }
            cause = .storeChanged
        }
        do {
            _ = try update(cause: cause)
        } catch {
            state.withLock { $0.failure = error }
        }
    }

    /// Whether a change can matter to these results: an object of the fetched entities changed.
    /// (A predicate on a to-one compares the target's ID, which only the object's own row holds.)
    private func touchesFamily(_ changes: ObjectChanges) -> Bool {
        for set in [changes.inserted, changes.updated, changes.deleted] where set.contains(where: { family.contains($0.entity) }) {
            return true
        }
        return false
    }

    /// Fetches and diffs against the held results under the lock, so reports are queued in the
    /// order the results changed; then delivers the queue.
    private func update(cause: FetchedResultsChange.Cause) throws -> FetchedResultsChange? {
        let change: FetchedResultsChange? = try state.withLock { state in
            guard state.subscription != nil else { return nil }
            let fresh = try state.store.fetch(request)
            state.failure = nil
            let change = FetchedResultsChange(cause: cause, from: state.held, to: fresh, sortKeys: request.sortDescriptors.map(\.key))
            state.held = fresh
            guard !change.isEmpty else { return nil }
            state.pending.append(change)
            return change
        }
        deliverPending()
        return change
    }

    /// Posts queued reports with no lock held, one delivery at a time: a report made during a
    /// delivery (a handler saved, or another thread did) is posted by that delivery, after the
    /// report in hand.
    private func deliverPending() {
        let delivers = state.withLock { state in
            defer { state.delivering = true }
            return !state.delivering
        }
        guard delivers else { return }
        while let change = state.withLock({ state -> FetchedResultsChange? in
            guard !state.pending.isEmpty else {
                state.delivering = false
                return nil
            }
            return state.pending.removeFirst()
        }) {
            hub.post(change)
        }
    }
}

extension UbiquitousStoreCoordinator {
    /// A `FetchedResultsObserver` of `request` on the store the app works on now; it follows
    /// the store transitions.
    public func observeResults(_ request: FetchRequest) throws -> FetchedResultsObserver {
        if isClosed { throw StoreError.closed }
        guard let peer else { throw PeerError.noStore }
        return try FetchedResultsObserver(store: peer.store, request: request)
    }
}

extension UbiquityPeer {
    /// A `FetchedResultsObserver` of `request` on this peer's store.
    public func observeResults(_ request: FetchRequest) throws -> FetchedResultsObserver {
        try FetchedResultsObserver(store: store, request: request)
    }
}
