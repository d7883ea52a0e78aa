import CSQLite

// Settings for writes that fill or rewrite a whole store: a newcomer's join and initial import.
extension SQLiteDatabase {
    /// Runs `body` with the main database in rollback-journal mode (`DELETE`, `synchronous=FULL`),
    /// then puts it back in WAL mode. Meant for one bulk write into empty tables: in WAL mode
    /// each of its pages is written to the WAL and then copied into the file by a checkpoint;
    /// here it goes into the file once, and pages the file did not have need no journal.
    ///
    /// SQLite leaves WAL mode only for the one connection that has the file open. When another
    /// has it (a checkpoint connection, another process), the switch is refused at once, without
    /// waiting, and `body` runs in WAL mode as ever. Throws when the file cannot be put back in
    /// WAL mode; what `body` committed stays committed, and the next open sets WAL mode again.
    func inRollbackJournal<T>(_ body: () throws -> T) throws -> T {
        guard !isInTransaction, !isLingering else { return try body() }
        resetActiveStatements()
        sqlite3_busy_timeout(handle, 0)
        let switched = (try? journalMode("DELETE")) == "delete"
        sqlite3_busy_timeout(handle, SQLiteDatabase.busyTimeout)
        guard switched else { return try body() }
        let result: Result<T, any Error>
        do {
            // NORMAL may lose a rollback journal's last commit to a power cut, and can corrupt the file.
            try execute("PRAGMA main.synchronous=FULL")
            result = Result { try body() }
        } catch {
            result = .failure(error)
        }
        resetActiveStatements()
        try execute("PRAGMA main.synchronous=NORMAL")
        let mode = try journalMode("WAL")
        guard mode == "wal" else {
            throw SQLiteError(code: SQLITE_BUSY, message: "the store stayed in journal mode \(mode) after a bulk write", sql: "PRAGMA main.journal_mode=WAL")
        }
        return try result.get()
    }

    /// Sets the main database's journal mode; returns the mode SQLite reports after it.
    private func journalMode(_ mode: String) throws -> String {
        let pragma = try statement("PRAGMA main.journal_mode=\(mode)")
        defer { pragma.reset() }
        guard try pragma.step() else { return "" }
        return pragma.string(0)?.lowercased() ?? ""
    }

    /// Sets the main database's page cache limit to `kibibytes`, or with `nil` back to the usual
    /// one (`pageCacheKiB`), freeing the pages over it. SQLite takes pages as it needs them: a
    /// higher limit costs memory only as far as the connection reads or writes the file.
    func setPageCache(kibibytes: Int?) throws {
        try execute("PRAGMA main.cache_size=-\(kibibytes ?? Self.pageCacheKiB)")
        if kibibytes == nil { sqlite3_db_release_memory(handle) }
    }
}
