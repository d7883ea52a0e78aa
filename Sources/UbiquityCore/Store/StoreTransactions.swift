import Foundation
import UbiquityBase
import UbiquityPlist

/// What `applyImported` did with a batch of logs.
public struct ImportApplication: Sendable {
    /// The objects the applied logs changed.
    public var changes = ObjectChanges()
    /// The logs applied, in order.
    public var applied: [(peerID: String, number: Int64)] = []
    /// Logs the store refused, with the reason; nothing of them was applied.
    public var refused: [(peerID: String, number: Int64, reason: String)] = []
    /// Logs left out because they depend on a refused one: they wait for it.
    public var deferred: [(peerID: String, number: Int64)] = []

    public init() {}
}

// Committing local transactions (data + outbox in one SQLite transaction) and applying
// imported ones, with the knowledge vector and history kept in step.
extension PersistentStore {
    /// Commits a local transaction: applies the records with a new stamp and number, and puts
    /// the encoded log in the outbox, all in one SQLite transaction. Returns `nil` when the
    /// records are empty.
    public func commitLocal(inserted: [ChangeRecord], updated: [ChangeRecord], deleted: [GlobalID],
                            format: PlistFormat = .binary) throws -> (log: TransactionLog, changes: ObjectChanges)? {
        guard !(inserted.isEmpty && updated.isEmpty && deleted.isEmpty) else { return nil }
        if isReadOnly { throw StoreError.readOnly }
        // Large values become files before the transaction: a log never names a file not written.
        let inserted = try externalizing(inserted), updated = try externalizing(updated)
        let committed = try locked {
            if let retirement { throw StoreError.retired(retirement.reason) }
            let savedClock = clock
            do {
                // The caller waits for a save: the WAL's copy into the file is left to the
                // checkpoint beside (`WALCheckpointer`).
                return try database.checkpointingBeside { try database.transaction {
                    try commitLocalLocked(inserted: inserted, updated: updated, deleted: deleted, format: format)
                } }
            } catch {
                // The transaction rolled back: so must everything cached from it.
                try forgetRolledBack(clock: savedClock)
                throw error
            }
        }
        changeObservers.notify(.committed(committed.1, local: true))
        return committed
    }

    /// `commitLocal`'s transaction: the caller holds the lock and an open transaction, and
    /// tells the change observers once it committed.
    func commitLocalLocked(inserted: [ChangeRecord], updated: [ChangeRecord], deleted: [GlobalID],
                           format: PlistFormat) throws -> (log: TransactionLog, changes: ObjectChanges) {
        // Above every number of this peer the container is known to hold: a store
        // behind its own logs (restored from a backup) never writes one twice.
        let number = max(knowledgeCache[peerID], ownNumbersReserved) + 1
        var knowledge = knowledgeCache
        knowledge[peerID] = number
        let date = wallClock.now
        let log = TransactionLog(
            peerID: peerID, transactionNumber: number, knowledge: knowledge, stamp: clock.tick(now: date),
            transactionDate: date.timeIntervalSince1970, modelVersionHash: model.hash,
            storeName: storeName, contentName: contentName,
            inserted: inserted, updated: updated, deleted: deleted, contentEpoch: try meta(.contentEpoch))
        // The log's bytes are made beside the rows (a large log on another thread).
        let encoding = LocalLogEncoding(log, format: format)
        var changes = ObjectChanges()
        // Sized once: growing a set of 10,000 IDs rehashed it a dozen times.
        changes.reserveCapacity(inserted: inserted.count, updated: updated.count, deleted: deleted.count)
        try applyRecords(of: log, into: &changes)
        if number == knowledgeCache[peerID] + 1 {
            try advanceKnowledge(peer: peerID, to: number)
        } else {
            // The knowledge stays at what the store applied: the transactions between
            // are still imported when their logs come, this one after them again.
            try reserveOwnNumbersLocked(through: number)
        }
        try history.record(log, isLocal: true, applied: now)
        try persistClock()
        try outbox.add(number: number, fileName: log.fileName, bytes: encoding.bytes())
        return (log, changes)
    }

    /// Applies imported logs in the given order, in one SQLite transaction. Each must be the
    /// next of its author; one already covered is skipped.
    ///
    /// A log the store refuses (a constraint SQLite will not break, an entity it has no table
    /// for) is rolled back alone (the batch is then applied again, each log in a savepoint) and returned
    /// in `refused`, and the logs after it that depend on it — its author's later ones, and
    /// any whose author had seen it — are left out (`deferred`); every other log still
    /// applies. Only a failure that is no log's fault (the disk full, the database locked or
    /// damaged) rolls back the whole batch and throws.
    public func applyImported(_ logs: [TransactionLog]) throws -> ImportApplication {
        let application = try locked {
            let savedClock = clock
            do {
                // First the whole batch without a savepoint per log: in a savepoint SQLite copies
                // every page a log touches aside (to a temporary file once past 64 KiB), which
                // doubled its work per row. A log the store refuses sends the batch back to where
                // it started, to be applied log by log in savepoints (the same result, slower).
                if let result = try applyImported(logs, logByLog: false) { return result }
                try forgetRolledBack(clock: savedClock)
                return try applyImported(logs, logByLog: true)!
            } catch {
                try forgetRolledBack(clock: savedClock)
                throw error
            }
        }
        if !application.changes.isEmpty { changeObservers.notify(.committed(application.changes, local: false)) }
        return application
    }

    /// After a transaction rolled back: the clock as it was before it, and nothing cached from
    /// it (slot writers, knowledge).
    func forgetRolledBack(clock savedClock: HybridLogicalClock) throws {
        clock = savedClock
        forgetSlotWriters()
        knowledgeCache = try loadKnowledge()
        ownNumbersReserved = try loadOwnNumbersReserved()
    }

    /// A log the store refused while the batch was applied without savepoints: the batch is
    /// rolled back and applied again log by log.
    struct RefusedWithoutSavepoint: Error {}

    /// Applies `logs` in one transaction; each in a savepoint of its own when `logByLog`, else
    /// `nil` (nothing applied, the transaction rolled back) when the store refuses one. The
    /// caller holds the lock and restores the clock and caches after a `nil` or an error.
    package func applyImported(_ logs: [TransactionLog], logByLog: Bool) throws -> ImportApplication? {
        try importTransaction { result in
            result.changes.reserveCapacity(inserted: logs.reduce(0) { $0 + $1.inserted.count }, updated: logs.reduce(0) { $0 + $1.updated.count },
                                           deleted: logs.reduce(0) { $0 + $1.deleted.count })
            for log in logs {
                guard log.transactionNumber > knowledgeCache[log.peerID] else { continue }
                guard log.transactionNumber == knowledgeCache[log.peerID] + 1, knowledgeCache.dominates(log.knowledge.removing(log.peerID)) else {
                    // Behind a refused log it waits; without one, the caller broke the order.
                    guard !result.refused.isEmpty else { throw StoreError.notApplicable(peer: log.peerID, number: log.transactionNumber) }
                    result.deferred.append((log.peerID, log.transactionNumber))
                    continue
                }
                guard logByLog else {
                    do {
                        try apply(log, into: &result.changes)
                    } catch where Self.isTheLogsFault(error) {
                        throw RefusedWithoutSavepoint()
                    }
                    result.applied.append((log.peerID, log.transactionNumber))
                    continue
                }
                let (clockBefore, knowledgeBefore) = (clock, knowledgeCache)
                result.changes.startJournal()
                do {
                    try database.transaction { try apply(log, into: &result.changes) }
                } catch where Self.isTheLogsFault(error) {
                    (clock, knowledgeCache) = (clockBefore, knowledgeBefore)
                    forgetSlotWriters()
                    result.changes.undoJournal()
                    result.refused.append((log.peerID, log.transactionNumber, "the store refused it: \(error)"))
                    continue
                }
                result.applied.append((log.peerID, log.transactionNumber))
            }
        }
    }

    /// One transaction of imported logs, applied into its result by `body`; `nil` (rolled back)
    /// when `body` throws `RefusedWithoutSavepoint`.
    func importTransaction(_ body: (inout ImportApplication) throws -> Void) throws -> ImportApplication? {
        do {
            return try database.transaction {
                var result = ImportApplication()
                try body(&result)
                result.changes.endJournal()
                try persistClock()
                return result
            }
        } catch is RefusedWithoutSavepoint {
            return nil
        }
    }

    /// Applies one log's records, knowledge and history; the caller holds an open transaction.
    func apply(_ log: TransactionLog, into changes: inout ObjectChanges) throws {
        // The importer refuses such logs first; the clock must never adopt one.
        guard !log.stamp.isTooFarAhead(of: now) else {
            throw StoreError.stampTooFarAhead(peer: log.peerID, number: log.transactionNumber, stamp: log.stamp)
        }
        clock.observe(log.stamp)
        try applyRecords(of: log, into: &changes)
        try advanceKnowledge(peer: log.peerID, to: log.transactionNumber)
        try history.record(log, isLocal: false, applied: now)
    }

    /// Whether applying a log failed because of what the log holds (so it is set aside and the
    /// rest goes on) rather than because of the store (which stops the whole import).
    static func isTheLogsFault(_ error: any Error) -> Bool {
        switch error {
        case let error as SQLiteError:
            // A constraint, a value too big or of the wrong kind.
            return [18, 19, 20].contains(error.code)
        case is ModelError, is GlobalIDError:
            return true
        case let error as StoreError:
            if case .notApplicable = error { return false }
            return true
        default:
            return false
        }
    }

    /// Waits for the checkpoint a save left beside it, if one runs (a benchmark, before it
    /// times something else).
    package func waitForCheckpointBeside() {
        lockedState { database.waitForCheckpointBeside() }
    }

    // MARK: Outbox

    /// Local transactions not yet written into the container, oldest first.
    public func pendingOutbox() throws -> [OutboxEntry] { try locked { try database.unchangedRead("pendingOutbox") { try outbox.pending() } } }

    /// Moves an outbox entry to the sent logs once its file is in the container, keeping a
    /// copy and the file's signature then (`file`; `nil`: keep no copy).
    public func markSent(_ number: Int64, file: DirectoryEntry? = nil) throws {
        try locked {
            try database.transaction {
                if let file { try sentLogTable.add(fromOutbox: number, file: file) }
                try outbox.remove(number)
            }
        }
    }

    // MARK: History

    /// Applied transactions, newest first.
    public func transactionHistory(limit: Int = 100) throws -> [TransactionSummary] { try locked { try history.recent(limit: limit) } }

    /// When another peer's log was last applied here (seconds since 1970); `nil`: never.
    package func lastImportDate() throws -> Double? { try locked { try history.lastImportDate() } }
}

extension KnowledgeVector {
    package func removing(_ peer: String) -> KnowledgeVector {
        var copy = self
        copy[peer] = 0
        return copy
    }
}
