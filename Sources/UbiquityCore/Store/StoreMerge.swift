// The store's side of the merge (`MergeEngine` does it): what the store's other parts (reads,
// the baseline join, schema upgrades) ask of the rows and writers. Callers hold the lock.
extension PersistentStore {
    /// Applies every record of `log` (see `MergeEngine.applyRecords`). The caller holds the
    /// lock and an open transaction (whose rollback must call `forgetSlotWriters`).
    func applyRecords(of log: TransactionLog, into changes: inout ObjectChanges) throws {
        try merge.applyRecords(of: log, into: &changes, now: now)
    }

    func loadRow(_ table: EntityTable, _ id: GlobalID) throws -> [SQLiteValue]? { try merge.loadRow(table, id) }

    /// The writer with `id` in `Z_WRITERS`; `nil` when there is none or its stamp is unreadable.
    func slotWriter(id: Int64) throws -> SlotWriter? { try slotWriters.writer(id: id) }

    /// Drops cached writers: after a rollback (an id may be given again to another writer) or
    /// after the table was replaced.
    func forgetSlotWriters() { slotWriters.forget() }
}
