import UbiquitySync

extension UbiquitousStoreCoordinator {
    /// Calls `handler` with each report of sync activity from now on — exports, imports, the
    /// initial import, baseline rolls, garbage collections and model migrations of every store
    /// this coordinator opens — on a queue of its own, in order, never while the work holds a
    /// lock, until the observation is cancelled. `close()` returns once every report made
    /// before it was delivered.
    @discardableResult
    public func observeActivity(_ handler: @escaping @Sendable (SyncActivity) -> Void) -> ActivityObservation {
        activityHub.observe(handler)
    }

    /// The sync activity from now on, as an `AsyncStream`; it ends at `close()`.
    public func activityStream() -> AsyncStream<SyncActivity> { activityHub.stream() }

    /// `activityStream()`, as a property.
    public var activities: AsyncStream<SyncActivity> { activityStream() }
}
