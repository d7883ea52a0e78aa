import Foundation

/// Decodes items `0..<count` on one worker thread, `chunk` at a time and at most `ahead` items
/// beyond the ones taken, while the calling thread does the rest of the import (the importer
/// merges logs as they come, `Importer.importAvailable`). Results come back in order; every
/// one taken stays available (`outcome(at:)`), so the importer can go over them again.
///
/// Hand-offs are per chunk, not per item: a lock and, at most, a wake-up per chunk (the first
/// attempt at this, one hand-off per log, cost 30,000 context switches an import).
final class LogDecodePipeline<Output: Sendable>: @unchecked Sendable {
    // @unchecked: the decoded chunks are handed over only under `condition`.
    // @unchecked: `ready`, `produced`, `taken`, `stopped` and `running` are read and written
    // only with `condition` locked; `outcomes` only on the thread that calls `outcome(at:)`.
    private let count: Int
    private let chunk: Int
    private let ahead: Int
    private let decode: @Sendable (Int) -> Output
    private let condition = NSCondition()
    private var ready: [Output] = []
    private var taken = 0
    private var stopped = false
    private var running = true
    private var outcomes: [Output] = []
    /// Results the importer is done with, for the worker to release.
    private var garbage: [Output]?

    init(count: Int, chunk: Int = 32, ahead: Int = 128, decode: @escaping @Sendable (Int) -> Output) {
        self.count = count
        self.chunk = max(1, chunk)
        self.ahead = max(self.chunk, ahead)
        self.decode = decode
        outcomes.reserveCapacity(count)
        let thread = Thread { [self] in work() }
        // Decoding recurses into nested plists: the main thread's stack size, not a small default.
        thread.stackSize = 8 << 20
        thread.start()
    }

    /// Item `index`'s result (`index < count`), waiting for the worker if it is not decoded yet.
    func outcome(at index: Int) -> Output {
        while outcomes.count <= index {
            condition.lock()
            while ready.isEmpty { condition.wait() }
            outcomes += ready
            taken += ready.count
            ready.removeAll(keepingCapacity: true)
            condition.broadcast()
            condition.unlock()
        }
        return outcomes[index]
    }

    /// How many results were taken so far.
    var outcomeCount: Int { outcomes.count }

    /// Hands every result taken to the worker to release once it has decoded the last: freeing
    /// a batch's records is a few percent of an import, done on the calling thread otherwise.
    /// The caller must hold no other reference to them for this to save it anything.
    func releaseOutcomes() {
        condition.lock()
        garbage = outcomes
        outcomes = []
        condition.broadcast()
        condition.unlock()
    }

    /// Stops the worker and waits until it has: after it, nothing is decoded (nor read) on
    /// behalf of this import, which may end early, on an error. Results handed over by
    /// `releaseOutcomes` may still be being freed.
    func finish() {
        condition.lock()
        stopped = true
        condition.broadcast()
        while running { condition.wait() }
        condition.unlock()
    }

    private func work() {
        var next = 0
        condition.lock()
        while next < count {
            while !stopped, min(count, next + chunk) - taken > ahead { condition.wait() }
            if stopped { break }
            condition.unlock()
            let end = min(count, next + chunk)
            let decoded = (next..<end).map(decode)
            condition.lock()
            ready += decoded
            next = end
            condition.broadcast()
        }
        while !stopped, garbage == nil { condition.wait() }
        let released = garbage.take()
        running = false
        condition.broadcast()
        condition.unlock()
        // The results are freed here, after `finish` has returned: nothing is read any more.
        withExtendedLifetime(released) {}
    }
}
