/// Per entity table, a Bloom filter (`GlobalIDFilter`) of every object ID that may be alive,
/// so that a context's check of a new natural key — whether an object of that ID is alive
/// already — answers "no" without a SQLite lookup for almost every key never used. A save of
/// 10,000 objects with keys spent a fifth of its time in those lookups.
///
/// What keeps a filter a superset of its table's live IDs:
/// - it is built from the table's live rows, in the snapshot of a key check;
/// - every row the merge makes alive, local or imported, is added (`LiveKeyFilter.noteAlive`);
/// - a baseline's join, which copies rows in bulk, drops every filter (`dropAll`);
/// - a commit by another connection (another process, or another store object on the same
///   file) drops them too: SQLite's `data_version` moves, and it is read once per snapshot.
/// An ID added by a transaction that then rolled back stays in: a false "maybe", which only
/// costs the lookup. Used under the store's lock only.
final class LiveKeyFilters {
    private let tables: [EntityTable]
    /// `PRAGMA data_version` when last read, and the lingering read it was read in.
    private var dataVersion: Int64?
    private var checkedRead: UInt64 = 0

    init(tables: [EntityTable]) {
        self.tables = tables
    }

    /// Whether the object `id` of `table` is surely not alive; `false` means "ask SQLite".
    /// Only inside a lingering read of `database` (a run of key checks) does it say more.
    func surelyNotAlive(_ id: GlobalID, in table: EntityTable, database: SQLiteDatabase) throws -> Bool {
        guard database.isLingering else { return false }
        if database.lingeringReads != checkedRead {
            // A new snapshot: what another connection committed since the last one shows here.
            let version = try database.statement("PRAGMA data_version").rows { $0.int64(0) }.first
            if version != dataVersion { dropAll() }
            (dataVersion, checkedRead) = (version, database.lingeringReads)
        }
        return try table.liveKeys.surelyNotAlive(id, in: table, database: database)
    }

    /// Forgets every filter: rows were made alive by a path that does not note them.
    func dropAll() {
        for table in tables { table.liveKeys.drop() }
    }
}

/// One entity table's filter of the IDs that may be alive (`LiveKeyFilters`), held by the
/// table, and what decides when to build it.
final class LiveKeyFilter {
    private var filter: GlobalIDFilter?
    /// Without a filter: the checks made by SQLite since the last attempt to build one, and
    /// the count at which the next attempt is made.
    private var checks = 0, nextAttempt = 1

    func surelyNotAlive(_ id: GlobalID, in table: EntityTable, database: SQLiteDatabase) throws -> Bool {
        if let filter { return !filter.mayContain(id.description) }
        checks += 1
        guard checks >= nextAttempt else { return false }
        // Building reads every live row: it is tried when the table holds at most four rows per
        // check made so far (plus a few thousand), and tried again after twice as many checks.
        // A large store is read only once many keys were checked, and the reads of failed
        // tries cost at most a few rows per check.
        guard let built = try Self.build(table, database: database, limit: 4 * checks + 4096) else {
            nextAttempt = 2 * checks
            return false
        }
        filter = built
        return !built.mayContain(id.description)
    }

    /// Whether a run of key checks built the filter (tests look).
    var isBuilt: Bool { filter != nil }

    /// An object the merge made alive.
    func noteAlive(_ id: GlobalID) {
        if filter != nil { filter!.add(id.description) }
    }

    func drop() {
        filter = nil
        (checks, nextAttempt) = (0, 1)
    }

    /// The IDs of `table`'s live rows, or `nil` when there are more than `limit`.
    private static func build(_ table: EntityTable, database: SQLiteDatabase, limit: Int) throws -> GlobalIDFilter? {
        let statement = try database.statement("SELECT gid FROM \(table.quotedName) WHERE alive = 1 LIMIT ?")
        try statement.bind(limit + 1, at: 1)
        var hashes: [UInt64] = []
        while try statement.step() {
            guard hashes.count < limit else {
                _ = statement.reset()
                return nil
            }
            hashes.append(statement.withTextBytes(0) { GlobalIDFilter.hash(bytes: $0) } ?? 0)
        }
        // Room for as many again before the filter grows a layer.
        var filter = GlobalIDFilter(capacity: 2 * hashes.count)
        for hash in hashes { filter.add(hash: hash) }
        return filter
    }
}
