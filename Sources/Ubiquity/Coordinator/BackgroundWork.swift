import Foundation
import Synchronization

/// Where a coordinator runs its background work (the initial import, the catch-up at launch):
/// on a dispatch queue, as an app would, or only when the owner says — so a scenario replays
/// the same interleaving of app edits and imports for the same seed.
public final class BackgroundWork: Sendable {
    public enum Mode: Sendable {
        /// Each job starts at once on a thread of its own. Not on a global dispatch queue: its
        /// workers are as many as the cores, and an app whose tasks wait for the import (Swift
        /// concurrency runs them on those same workers) would leave none to run it.
        case concurrent
        /// Jobs wait until `runPending()`; `cancelPending()` drops them (an app quitting mid-import).
        case manual
    }

    private struct Job {
        let body: JobBody
        let cancel: @Sendable () -> Void
        let finished: @Sendable () -> Void

        /// Runs the job, lets go of everything it held, then says it finished: whoever the end
        /// wakes (a `close()`, a test's last check) finds nothing of it still alive.
        func runToEnd() {
            body.runOnce()
            finished()
        }
    }

    /// A job's closure, dropped as soon as it has run.
    private final class JobBody: Sendable {
        private let run: Mutex<(@Sendable () -> Void)?>
        init(_ run: @escaping @Sendable () -> Void) { self.run = Mutex(run) }

        func runOnce() {
            let run = self.run.withLock { run in
                defer { run = nil }
                return run
            }
            run?()
        }
    }

    public let mode: Mode
    private let pending = Mutex<[Job]>([])

    public init(_ mode: Mode = .concurrent) { self.mode = mode }

    /// Jobs submitted and neither run nor cancelled yet (always 0 when concurrent).
    public var pendingCount: Int { pending.withLock { $0.count } }

    /// Whether the calling thread is running one of this object's jobs.
    var isRunningJob: Bool { Thread.current.threadDictionary[jobKey] != nil }
    private let jobKey = "ubiquity.background-job.\(UUID().uuidString)"

    private func running(_ run: @escaping @Sendable () -> Void) -> @Sendable () -> Void {
        { [jobKey] in
            Thread.current.threadDictionary[jobKey] = true
            defer { Thread.current.threadDictionary[jobKey] = nil }
            run()
        }
    }

    /// Runs `run` in the background; `finished` is called once it has run and been let go,
    /// `cancel` instead when it is dropped unrun.
    func submit(run: @escaping @Sendable () -> Void, cancel: @escaping @Sendable () -> Void, finished: @escaping @Sendable () -> Void) {
        let job = Job(body: JobBody(running(run)), cancel: cancel, finished: finished)
        switch mode {
        case .concurrent:
            let thread = Thread { job.runToEnd() }
            thread.name = "ubiquity.background-work"
            thread.start()
        case .manual: pending.withLock { $0.append(job) }
        }
    }

    /// Runs the waiting jobs on the calling thread, and the jobs they submit; returns how many ran.
    @discardableResult
    public func runPending() -> Int {
        var count = 0
        while let job = pending.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) {
            job.runToEnd()
            count += 1
        }
        return count
    }

    /// Drops the waiting jobs without running them.
    public func cancelPending() {
        for job in pending.withLock({ pending -> [Job] in defer { pending.removeAll() }; return pending }) { job.cancel() }
    }
}
