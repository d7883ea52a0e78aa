import Foundation

/// Why a store takes no more saves, and where its contexts go on.
enum StoreRetirement {
    /// For good: contexts on it throw `StoreError.retired` with the reason.
    case retired(String)
    /// The store was closed (`PersistentStore.close()`): contexts on it throw `StoreError.closed`.
    case closed
    /// A successor is being prepared (the fallback's saves replayed into the account store):
    /// a context that saves now waits for it rather than failing.
    case handingOver(String)
    /// Contexts move to `successor`. With `keepsChanges: false` (another account's store),
    /// a context holding unsaved changes made here refuses to carry them over.
    case handedOver(String, successor: PersistentStore, keepsChanges: Bool)

    var reason: String {
        switch self {
        case let .retired(reason), let .handingOver(reason), let .handedOver(reason, _, _): return reason
        case .closed: return StoreError.closed.description
        }
    }
}

/// Where a context goes when its store retires (see `ObjectContext`'s store following).
package struct StoreSuccessor {
    package let store: PersistentStore
    /// Whether unsaved changes made on the old store may be saved into the new one.
    package let keepsChanges: Bool
    package let reason: String
}

// Retiring a store, and handing it over to the store the app works on next, so that contexts
// made before a store transition keep working after it.
extension PersistentStore {
    /// Refuses every later save with `StoreError.retired(reason)`; wakes contexts waiting for a handover.
    package func retire(_ reason: String) { setRetirement(.retired(reason)) }

    /// Refuses saves from now on while the successor is prepared; contexts that save meanwhile
    /// wait for `handOver(to:)` (or `retire`, which fails them).
    package func beginHandover(_ reason: String) { setRetirement(.handingOver(reason)) }

    /// Sends contexts on this store to `successor`. `keepsChanges`: the successor holds this
    /// store's data (a fallback's saves replayed into its account store), so unsaved changes
    /// carry over; else (another account) only contexts without unsaved changes follow.
    package func handOver(to successor: PersistentStore, reason: String, keepsChanges: Bool) {
        setRetirement(.handedOver(reason, successor: successor, keepsChanges: keepsChanges))
        changeObservers.notify(.handedOver(to: successor))
    }

    private func setRetirement(_ retirement: StoreRetirement) {
        retirementChanged.lock()
        lockedState { self.retirement = retirement }
        retirementChanged.broadcast()
        retirementChanged.unlock()
    }

    /// The store contexts on this one continue on, following a chain of handovers; `nil` while
    /// this store takes saves. Waits (up to `timeout` seconds) while a handover is prepared.
    /// Throws `StoreError.retired` for a store retired for good (or a handover that takes too long).
    package func successor(waiting timeout: Double = 600) throws -> StoreSuccessor? {
        let deadline = Date(timeIntervalSinceNow: timeout)
        retirementChanged.lock()
        defer { retirementChanged.unlock() }
        while true {
            switch lockedState({ retirement }) {
            case nil:
                return nil
            case let .retired(reason):
                throw StoreError.retired(reason)
            case .closed:
                throw StoreError.closed
            case let .handingOver(reason):
                if !retirementChanged.wait(until: deadline) { throw StoreError.handoverTimedOut(reason: reason, seconds: Int(timeout)) }
            case let .handedOver(reason, next, keepsChanges):
                // A store handed over twice (fallback → account → another account) ends where the app is now.
                guard let further = try next.successor(waiting: timeout) else {
                    return StoreSuccessor(store: next, keepsChanges: keepsChanges, reason: reason)
                }
                return StoreSuccessor(store: further.store, keepsChanges: keepsChanges && further.keepsChanges, reason: further.reason)
            }
        }
    }

    /// Closes the store for good: a save in progress finishes first, every later use of the
    /// store or of a context on it throws `StoreError.closed` (a store handed over before keeps
    /// sending its contexts on to its successor), and the connection is closed now, so nothing
    /// is written to the store's files once this returns. Called again, does nothing.
    package func close() {
        retirementChanged.lock()
        let ends = lockedState { () -> Bool in
            guard !isClosed else { return false }
            isClosed = true
            database.close()
            switch retirement {
            // Contexts and observers go on to the successor (or wait for it, and the handover or
            // a retirement follows).
            case .handedOver, .handingOver: return false
            case nil, .retired, .closed:
                retirement = .closed
                return true
            }
        }
        retirementChanged.broadcast()
        retirementChanged.unlock()
        if ends { changeObservers.notify(.closed) }
    }

    /// Whether this store takes no more saves (retired, handing over or handed over).
    package var isRetired: Bool { lockedState { retirement != nil } }
}
