/// The statements the merge runs for every record of one entity, held once prepared: taking
/// them from the connection's cache hashed their whole SQL text for every row. Those whose
/// parameters are all rebound skip `sqlite3_clear_bindings`. Used under the store's lock only.
final class EntityStatements {
    /// The connection they were prepared on (a statement belongs to one), by its serial: a
    /// weak reference cost an atomic retain and release per row to load.
    private var database: UInt64?
    private var insertNewRow: SQLiteStatement?
    private var selects: [[Int]: SQLiteStatement] = [:]
    private var updates: [[Int]: SQLiteStatement] = [:]
    private var inPlaceUpdates: [[Int]: SQLiteStatement] = [:]
    /// The last one asked for: an import's updates mostly touch the same columns, and the key
    /// of the dictionary cost an array and a hash per row.
    private var lastInPlaceUpdate: (columns: [Int], writers: [Int], statement: SQLiteStatement)?
    /// Where `MergeEngine.updateInPlace` gathers the columns and writers of each record, its
    /// storage kept from one record to the next.
    let inPlaceKey = InPlaceUpdateKey()

    /// Forgets the statements of another connection.
    private func use(_ database: SQLiteDatabase) {
        guard self.database != database.serial else { return }
        self.database = database.serial
        insertNewRow = nil
        selects = [:]
        updates = [:]
        inPlaceUpdates = [:]
        lastInPlaceUpdate = nil
    }

    /// `INSERT … ON CONFLICT(gid) DO NOTHING` of a whole row, holding the last row's bindings
    /// (`MergeEngine.insertIfNew` binds every parameter, or clears them first).
    func insertNewRow(of table: EntityTable, in database: SQLiteDatabase) throws(SQLiteError) -> SQLiteStatement {
        use(database)
        if let held = insertNewRow { return held.rewind() }
        let statement = try database.statement(table.insertNewRowSQL)
        insertNewRow = statement
        return statement
    }

    /// `SELECT <columns> … WHERE gid = ?`; its one parameter is always rebound.
    func select(_ columns: [Int], of table: EntityTable, in database: SQLiteDatabase) throws(SQLiteError) -> SQLiteStatement {
        use(database)
        if let held = selects[columns] { return held.rewind() }
        let statement = try database.statement(table.selectSQL(columns: columns))
        selects[columns] = statement
        return statement
    }

    /// `UPDATE … SET <columns> = ? … WHERE gid = ?`; every parameter is always rebound.
    func update(_ columns: [Int], of table: EntityTable, in database: SQLiteDatabase) throws(SQLiteError) -> SQLiteStatement {
        use(database)
        if let held = updates[columns] { return held.rewind() }
        let statement = try database.statement(table.updateSQL(columns: columns))
        updates[columns] = statement
        return statement
    }

    /// The conditional `UPDATE` of `MergeEngine.updateInPlace`; every parameter is always rebound.
    func inPlaceUpdate(_ columns: [Int], writers: [Int], of table: EntityTable, in database: SQLiteDatabase) throws(SQLiteError) -> SQLiteStatement {
        use(database)
        if let last = lastInPlaceUpdate, last.columns == columns, last.writers == writers { return last.statement.rewind() }
        let key = columns + [-1] + writers
        let statement: SQLiteStatement
        if let held = inPlaceUpdates[key] {
            statement = held.rewind()
        } else {
            statement = try database.statement(table.inPlaceUpdateSQL(columns: columns, writers: writers))
            inPlaceUpdates[key] = statement
        }
        // Kept by value: when the caller refills `inPlaceKey`, its arrays are copied on write.
        lastInPlaceUpdate = (columns, writers, statement)
        return statement
    }
}

/// The columns an in-place update sets and the writer columns it stamps, for one record at a time.
final class InPlaceUpdateKey {
    var columns: [Int] = []
    var writers: [Int] = []
}
