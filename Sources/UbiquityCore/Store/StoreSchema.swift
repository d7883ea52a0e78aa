/// The bookkeeping tables every store has besides its entity tables.
///
/// Version 2 replaced each slot's stamp text and number (`s_<slot>`, `n_<slot>`) by a reference
/// to `Z_WRITERS`; version-1 stores and baselines are upgraded when opened (`StoreSchemaUpgrade`).
enum StoreSchema {
    static let version = 2

    static let bookkeepingSQL = """
    CREATE TABLE IF NOT EXISTS Z_META (key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL);
    CREATE TABLE IF NOT EXISTS Z_KNOWLEDGE (peer TEXT PRIMARY KEY NOT NULL, number INTEGER NOT NULL);
    CREATE TABLE IF NOT EXISTS Z_OUTBOX (number INTEGER PRIMARY KEY NOT NULL, file TEXT NOT NULL, bytes BLOB NOT NULL);
    CREATE TABLE IF NOT EXISTS Z_TRANSACTIONS (peer TEXT NOT NULL, number INTEGER NOT NULL, stamp TEXT NOT NULL,
        kv TEXT NOT NULL, date REAL NOT NULL, source TEXT NOT NULL, inserted INTEGER NOT NULL,
        updated INTEGER NOT NULL, deleted INTEGER NOT NULL, applied REAL NOT NULL, PRIMARY KEY (peer, number));
    \(writersSQL(schema: "main"))
    CREATE TABLE IF NOT EXISTS Z_TOMBSTONES (gid TEXT NOT NULL, peer TEXT NOT NULL, number INTEGER NOT NULL,
        stamp TEXT NOT NULL, PRIMARY KEY (gid, peer, number)) WITHOUT ROWID;
    CREATE TABLE IF NOT EXISTS Z_CONFLICTS (id INTEGER PRIMARY KEY AUTOINCREMENT, gid TEXT NOT NULL,
        property TEXT NOT NULL, kind TEXT NOT NULL, winner_value, loser_value,
        winner_stamp TEXT NOT NULL, loser_stamp TEXT NOT NULL, winner_number INTEGER NOT NULL,
        loser_number INTEGER NOT NULL, recorded REAL NOT NULL);
    CREATE TABLE IF NOT EXISTS Z_SENT (number INTEGER PRIMARY KEY NOT NULL, file TEXT NOT NULL, bytes BLOB NOT NULL,
        size INTEGER NOT NULL, mtime REAL NOT NULL, inode INTEGER NOT NULL);
    CREATE TABLE IF NOT EXISTS Z_QUARANTINE (path TEXT PRIMARY KEY NOT NULL, size INTEGER NOT NULL,
        mtime REAL NOT NULL, reason TEXT NOT NULL, recorded REAL NOT NULL, signature TEXT, retryAfter REAL);
    CREATE TABLE IF NOT EXISTS Z_UNIQUE (scope TEXT NOT NULL, properties TEXT NOT NULL, key BLOB NOT NULL, gid TEXT NOT NULL,
        peer TEXT NOT NULL, number INTEGER NOT NULL, knowledge TEXT NOT NULL,
        PRIMARY KEY (scope, properties, key, gid, peer, number)) WITHOUT ROWID;
    CREATE INDEX IF NOT EXISTS I_Z_UNIQUE_gid ON Z_UNIQUE(gid);
    CREATE TABLE IF NOT EXISTS Z_MERGED (loser TEXT PRIMARY KEY NOT NULL, winner TEXT NOT NULL) WITHOUT ROWID;
    CREATE INDEX IF NOT EXISTS I_Z_MERGED_winner ON Z_MERGED(winner);
    DROP TABLE IF EXISTS Z_COLLECTED;
    \(previousOutboxSQL)
    """

    /// Saves of an earlier model version that were not in the cloud when the store was
    /// migrated: they still go into that version's folder (`StoreModelMigration`).
    static let previousOutboxSQL = """
    CREATE TABLE IF NOT EXISTS Z_OUTBOX_PREVIOUS (model TEXT NOT NULL, number INTEGER NOT NULL, file TEXT NOT NULL,
        bytes BLOB NOT NULL, PRIMARY KEY (model, number));
    """
}

extension StoreSchema {
    /// The transactions that wrote a slot: part of the merge state (baselines carry it).
    /// Ids are local to a store; `(peer, number)` names the transaction everywhere.
    static func writersSQL(schema: String) -> String {
        """
        CREATE TABLE IF NOT EXISTS \(schema).Z_WRITERS (id INTEGER PRIMARY KEY, peer TEXT NOT NULL, number INTEGER NOT NULL,
            stamp TEXT NOT NULL, UNIQUE (peer, number));
        """
    }
}
