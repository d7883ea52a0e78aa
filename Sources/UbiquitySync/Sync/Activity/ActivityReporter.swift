import Synchronization

/// Reports one activity to its hub: its start, its progress (posted only when the fraction rose
/// by a hundredth or the work is all done, so a large import posts about a hundred times) and
/// its end. Safe from any thread: an import's decode worker advances it while the import runs.
package final class ActivityReporter: Sendable {
    /// The fraction a progress report must add to the last one posted.
    static let step = 0.01

    private struct State {
        var progress = SyncActivity.Progress()
        var begun = false
        var ended = false
        var posted = 0.0
    }

    let kind: SyncActivity.Kind
    let id: Int
    private let hub: ActivityHub
    private let state = Mutex(State())

    init(kind: SyncActivity.Kind, id: Int, hub: ActivityHub) {
        (self.kind, self.id, self.hub) = (kind, id, hub)
    }

    /// Posts the start, with the work known so far; later calls only add to the total.
    package func begin(logs: Int = 0, bytes: Int64 = 0) {
        state.withLock { state in
            guard !state.begun else { return grow(&state, logs: logs, bytes: bytes) }
            state.begun = true
            state.progress.logsTotal = logs
            state.progress.bytesTotal = bytes
            hub.post(SyncActivity(kind: kind, id: id, phase: .started(state.progress)))
        }
    }

    /// More work found on the way: the total grows, the fraction is worked out again but never falls.
    package func grow(logs: Int, bytes: Int64 = 0) {
        state.withLock { grow(&$0, logs: logs, bytes: bytes) }
    }

    /// `logs` more done, of `bytes`.
    package func advance(logs: Int = 1, bytes: Int64 = 0) {
        state.withLock { state in
            guard state.begun, !state.ended else { return }
            state.progress.logsDone += logs
            state.progress.bytesDone += bytes
            settle(&state)
        }
    }

    /// Posts the end. Work that never began (nothing to do) is not told at all, unless it
    /// failed: then its start comes first. Success brings the progress to all done; a second
    /// call does nothing.
    package func end(_ outcome: SyncActivity.Outcome) {
        state.withLock { state in
            guard !state.ended else { return }
            if !state.begun {
                guard case .failed = outcome else { return }
                state.begun = true
                hub.post(SyncActivity(kind: kind, id: id, phase: .started(state.progress)))
            }
            if case .succeeded = outcome {
                state.progress.logsTotal = max(state.progress.logsTotal, state.progress.logsDone)
                state.progress.bytesTotal = max(state.progress.bytesTotal, state.progress.bytesDone)
                (state.progress.logsDone, state.progress.bytesDone) = (state.progress.logsTotal, state.progress.bytesTotal)
                state.progress.fraction = 1
                if state.posted < 1 { hub.post(SyncActivity(kind: kind, id: id, phase: .progressed(state.progress))) }
            }
            state.ended = true
            hub.post(SyncActivity(kind: kind, id: id, phase: .ended(outcome, state.progress)))
        }
    }

    /// Runs `body` as this activity: ended as succeeded when it returns, failed with what it throws.
    package func run<T>(_ body: () throws -> T) rethrows -> T {
        do {
            let value = try body()
            end(.succeeded)
            return value
        } catch {
            end(.failed(error))
            throw error
        }
    }

    private func grow(_ state: inout State, logs: Int, bytes: Int64) {
        state.progress.logsTotal += logs
        state.progress.bytesTotal += bytes
        settle(&state)
    }

    /// Works the fraction out again, never lower, and posts it when it rose by a step or all is done.
    private func settle(_ state: inout State) {
        let progress = state.progress
        let measured = progress.bytesTotal > 0 ? Double(progress.bytesDone) / Double(progress.bytesTotal)
            : progress.logsTotal > 0 ? Double(progress.logsDone) / Double(progress.logsTotal) : 0
        state.progress.fraction = max(progress.fraction, min(1, measured))
        let allDone = progress.logsTotal > 0 && progress.logsDone >= progress.logsTotal
        guard state.progress.fraction - state.posted >= Self.step || (allDone && state.progress.fraction > state.posted) else { return }
        state.posted = state.progress.fraction
        hub.post(SyncActivity(kind: kind, id: id, phase: .progressed(state.progress)))
    }
}

extension Optional where Wrapped == ActivityReporter {
    /// Runs `body` as the activity when someone listens, else just runs it.
    package func run<T>(_ body: () throws -> T) rethrows -> T {
        guard let reporter = self else { return try body() }
        return try reporter.run(body)
    }
}
