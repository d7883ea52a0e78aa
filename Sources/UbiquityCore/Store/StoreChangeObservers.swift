import Foundation

/// What changed a store's data, as its change observers are told.
package enum StoreChange {
    /// A local save (`local: true`) or a batch of imported logs committed these objects.
    case committed(ObjectChanges, local: Bool)
    /// A baseline's state was joined in: these objects changed, as by an import.
    case joined(ObjectChanges)
    /// Everything may have changed (the store was emptied for a content removal).
    case reset
    /// The store was handed over: its observers go on with `successor`.
    case handedOver(to: PersistentStore)
    /// The store was closed for good (and not handed over): its observers end.
    case closed
}

/// The store's subscribers to data changes. Told after the change committed and the store's
/// lock was released, on the thread that made the change.
package final class StoreChangeObservers {
    private let lock = NSLock()
    private var handlers: [UUID: @Sendable (StoreChange) -> Void] = [:]

    package init() {}

    package func add(_ handler: @escaping @Sendable (StoreChange) -> Void) -> UUID {
        let id = UUID()
        lock.withLock { handlers[id] = handler }
        return id
    }

    package func remove(_ id: UUID) {
        _ = lock.withLock { handlers.removeValue(forKey: id) }
    }

    /// Calls every handler outside the lock, so a handler may subscribe or unsubscribe.
    package func notify(_ change: StoreChange) {
        for handler in lock.withLock({ Array(handlers.values) }) { handler(change) }
    }
}
