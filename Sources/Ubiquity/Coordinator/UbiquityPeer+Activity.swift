import UbiquitySync

// Sync activity (`SyncActivity`): each step of a round told as it starts, progresses and ends.
// The steps themselves tell their progress; these helpers tell the start and end of those
// that the peer runs around a lower target's call.
extension UbiquityPeer {
    /// Calls `handler` with each report of this peer's sync activity from now on, on a queue
    /// of its own, in order, until the observation is cancelled.
    @discardableResult
    public func observeActivity(_ handler: @escaping @Sendable (SyncActivity) -> Void) -> ActivityObservation {
        activityHub.observe(handler)
    }

    /// This peer's sync activity from now on, as an `AsyncStream`; it ends at `close()`.
    public func activityStream() -> AsyncStream<SyncActivity> { activityHub.stream() }

    /// `activityStream()`, as a property.
    public var activities: AsyncStream<SyncActivity> { activityStream() }

    /// Runs a roll as a `baselineRoll` activity: told from the moment it begins writing, ended
    /// as skipped when it found after all that it need not roll; one that rolled is timed.
    func rolling(_ baseliner: Baseliner, _ roll: (Baseliner) throws -> BaselineDecision) throws -> BaselineDecision {
        var baseliner = baseliner
        let reporter = activityHub.reporter(.baselineRoll)
        baseliner.activity = reporter
        let start = SyncMetrics.now()
        do {
            let decision = try roll(baseliner)
            if !decision.isSkipped { metrics.record(.baselineRoll, since: start) }
            if case let .skipped(reason) = decision { reporter?.end(.skipped(reason)) } else { reporter?.end(.succeeded) }
            return decision
        } catch {
            reporter?.end(.failed(error))
            throw error
        }
    }

    /// Runs a collection as a `garbageCollection` activity, timed; its progress counts the files deleted.
    func collectingGarbage(_ collect: () -> GarbageReport) -> GarbageReport {
        let reporter = activityHub.reporter(.garbageCollection)
        reporter?.begin()
        let report = metrics.time(.garbageCollection) { collect() }
        reporter?.grow(logs: report.deleted.count + report.deletedCopies.count)
        reporter?.end(.succeeded)
        return report
    }
}
