/// One piece of sync work as it runs: an export, an import (or the initial import that builds
/// the account store), a baseline roll, a garbage collection or a model migration. Each is told
/// three ways, in order: `.started`, any number of `.progressed`, then `.ended` with its outcome.
///
/// Progress never goes backwards within one activity: when more work is found on the way (the
/// total of logs or bytes grows), `fraction` is worked out again against the new total, but it
/// is never posted lower than before. It reaches 1 when the work succeeded.
public struct SyncActivity: Sendable {
    /// What kind of work it is.
    public enum Kind: String, Sendable, CaseIterable {
        /// Local saves written into the cloud as logs.
        case export
        /// Other peers' logs read and applied to the store.
        case `import`
        /// The import that builds an account store the first time (Docs/Lifecycle.md).
        case initialImport
        /// A baseline written into the cloud.
        case baselineRoll
        /// Logs and files no peer needs any more, deleted.
        case garbageCollection
        /// The store carried to another version of the model when it was opened.
        case modelMigration
    }

    /// How far the work has come: logs (or items) and bytes done of the total known so far.
    public struct Progress: Sendable, Equatable {
        /// Logs (for a roll, transactions; for a collection, files; for a migration, the store) done.
        public internal(set) var logsDone = 0
        /// Of how many known so far: it may grow while the work runs.
        public internal(set) var logsTotal = 0
        /// Bytes of those logs done.
        public internal(set) var bytesDone: Int64 = 0
        /// Of how many bytes known so far.
        public internal(set) var bytesTotal: Int64 = 0
        /// From 0 to 1, by bytes when any are known, else by logs; never lower than posted before.
        public internal(set) var fraction = 0.0

        /// Nothing done of nothing known.
        public init() {}
    }

    /// How the work ended.
    public enum Outcome: Sendable {
        /// Did its work.
        case succeeded
        /// Ended without doing its work (a roll that found it need not roll after all): why.
        case skipped(String)
        /// Failed with the error the work threw (a `SyncError`, `StoreError`, …).
        case failed(any Error)
    }

    /// Where the work is.
    public enum Phase: Sendable {
        /// Begun, with the work known at its start.
        case started(Progress)
        /// Further on (posted when the fraction rose by a hundredth, or all is done).
        case progressed(Progress)
        /// Over: how, and how far it came.
        case ended(Outcome, Progress)
    }

    /// What kind of work it is.
    public let kind: Kind
    /// Tells one activity's reports from another's: unique within the coordinator (or peer) that posts it.
    public let id: Int
    /// Where the work is.
    public let phase: Phase

    /// The progress this report carries, whatever its phase.
    public var progress: Progress {
        switch phase {
        case let .started(progress), let .progressed(progress), let .ended(_, progress): return progress
        }
    }

    /// The outcome, once the activity ended.
    public var outcome: Outcome? {
        if case let .ended(outcome, _) = phase { return outcome }
        return nil
    }
}
