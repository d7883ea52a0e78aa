import Foundation

/// Validates a baseline's state file on a thread of its own, through a read-only connection of
/// its own, while the store's connection copies the same file's rows into a store that holds
/// nothing. Both only read the file; the copy's transaction commits only once the check has
/// passed, so a file that fails it leaves the store as it was, as a check made first would.
///
/// The objects alive in the file come over in batches as the check finds them, so the copying
/// thread, once its copy is done, builds the join's report while the check goes on.
final class ConcurrentStateFileCheck: @unchecked Sendable {
    // @unchecked: the batches and outcome its thread hands over are used only under `condition`.
    private let path: String
    private let validator: StateFileValidator
    // Guarded by `condition`: batches the check found and the copier has not taken yet, and how
    // the check ended, set once.
    private let condition = NSCondition()
    private var batches: [[GlobalID]] = []
    private var outcome: Result<Void, any Error>?

    /// Starts checking the file at `path` as `validator` would, on a new thread, handing over
    /// the objects alive `batchSize` at a time. `validator`'s connection is never used there:
    /// the thread opens its own.
    init(path: String, like validator: StateFileValidator, batchSize: Int = 16_384) {
        self.path = path
        self.validator = validator
        let thread = Thread { [self] in
            let result = Result<Void, any Error> {
                let database = try SQLiteDatabase(path: self.path, readOnly: true)
                var check = self.validator.reading(database, schema: "main")
                check.liveBatchSize = batchSize
                check.liveBatches = { live in
                    var batch: [GlobalID] = []
                    swap(&batch, &live)
                    self.condition.withLock {
                        self.batches.append(batch)
                        self.condition.signal()
                    }
                }
                _ = try check.validate()
            }
            condition.withLock {
                outcome = result
                condition.signal()
            }
        }
        thread.name = "ubiquity.join-check"
        thread.start()
    }

    /// Adds the objects alive in the file to `live` as the check finds them, and returns when
    /// it has passed; throws why the file cannot be joined if it fails (`live` then holds part).
    func collectLive(into live: inout Set<GlobalID>) throws {
        while true {
            let (taken, ended): ([[GlobalID]], Result<Void, any Error>?) = condition.withLock {
                while batches.isEmpty && outcome == nil { condition.wait() }
                defer { batches.removeAll() }
                return (batches, outcome)
            }
            for batch in taken { for id in batch { live.insert(id) } }
            // The outcome is set after the last batch: it ends the wait only once they are all in.
            if taken.isEmpty, let ended { return try ended.get() }
        }
    }
}

extension StateFileValidator {
    /// The same check through another connection, which names the file `schema`.
    func reading(_ database: SQLiteDatabase, schema: String) -> StateFileValidator {
        StateFileValidator(database: database, schema: schema, model: model, tables: tables, pairTables: pairTables,
                           orderTables: orderTables, knowledge: knowledge, now: now)
    }
}

extension ObjectChanges {
    /// What joining a state file into a store that holds nothing changed: every object alive in
    /// it was inserted.
    init(joinedLive live: [GlobalID]) {
        var inserted = Set<GlobalID>(minimumCapacity: Self.joinCapacity(live.count))
        for id in live { inserted.insert(id) }
        self.init(inserted: inserted)
    }

    /// Room for `objects` joined objects: a newcomer's sync adds the newer logs' objects to them
    /// (`ObjectChanges.merge`), and room up front saves growing the set, which hashes every
    /// object of the baseline again.
    static func joinCapacity(_ objects: Int) -> Int { objects + objects / 8 }
}
