import Foundation

/// Validates a baseline's state file on a thread of its own, through a read-only connection of
/// its own, while the store's connection copies the same file's rows into a store that holds
/// nothing. Both only read the file; the copy's transaction commits only once the check has
/// passed, so a file that fails it leaves the store as it was, as a check made first would.
final class ConcurrentStateFileCheck: @unchecked Sendable {
    private let path: String
    private let validator: StateFileValidator
    // Written by the checking thread before it signals `done`; read only after waiting for it.
    private var outcome: Result<[GlobalID], any Error>?
    private let done = DispatchSemaphore(value: 0)

    /// Starts checking the file at `path` as `validator` would, on a new thread. `validator`'s
    /// connection is never used there: the thread opens its own.
    init(path: String, like validator: StateFileValidator) {
        self.path = path
        self.validator = validator
        let thread = Thread { [self] in
            outcome = Result {
                let database = try SQLiteDatabase(path: self.path, readOnly: true)
                return try self.validator.reading(database, schema: "main").validate().live
            }
            done.signal()
        }
        thread.name = "ubiquity.join-check"
        thread.start()
    }

    /// Waits for the check: the objects alive in the file, or why it cannot be joined.
    func result() -> Result<[GlobalID], any Error> {
        done.wait()
        return outcome!
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
    /// it was inserted. A newcomer's sync adds the newer logs' objects to these
    /// (`ObjectChanges.merge`): room for them up front saves growing the set, which hashes every
    /// object of the baseline again.
    init(joinedLive live: [GlobalID]) {
        var inserted = Set<GlobalID>(minimumCapacity: live.count + live.count / 8)
        for id in live { inserted.insert(id) }
        self.init(inserted: inserted)
    }
}
