/// A local transaction waiting in the outbox to be written into the container.
public struct OutboxEntry: Sendable, Equatable {
    public let number: Int64
    public let fileName: String
    public let bytes: [UInt8]
}

/// `Z_OUTBOX`: this peer's logs committed but not yet written into the container, each with
/// its encoded bytes. Its callers hold the store's lock.
struct OutboxTable {
    let database: SQLiteDatabase

    /// Adds a committed log; the caller's transaction is the one that applied it.
    func add(number: Int64, fileName: String, bytes: [UInt8]) throws {
        try database.run("INSERT INTO Z_OUTBOX (number, file, bytes) VALUES (?, ?, ?)", [.integer(number), .text(fileName), .blob(bytes)])
    }

    /// The logs waiting, oldest first.
    func pending() throws -> [OutboxEntry] {
        try database.statement("SELECT number, file, bytes FROM Z_OUTBOX ORDER BY number").rows {
            OutboxEntry(number: $0.int64(0), fileName: $0.string(1) ?? "", bytes: $0.blob(2) ?? [])
        }
    }

    func remove(_ number: Int64) throws {
        try database.run("DELETE FROM Z_OUTBOX WHERE number = ?", [.integer(number)])
    }

    /// Moves every pending log into `Z_OUTBOX_PREVIOUS` under `model` (a migration: they still
    /// go into that version's folder); returns how many.
    func moveAll(toPreviousVersion model: String) throws -> Int {
        try database.execute(StoreSchema.previousOutboxSQL)
        try database.run("INSERT OR REPLACE INTO Z_OUTBOX_PREVIOUS (model, number, file, bytes) SELECT ?, number, file, bytes FROM Z_OUTBOX",
                         [.text(model)])
        let moved = try database.statement("SELECT count(*) FROM Z_OUTBOX").rows { $0.int64(0) }.first ?? 0
        try database.execute("DELETE FROM Z_OUTBOX")
        return Int(moved)
    }

    /// Saves of earlier model versions not yet written into their folders.
    func previousVersions() throws -> [(model: String, entry: OutboxEntry)] {
        try database.statement("SELECT model, number, file, bytes FROM Z_OUTBOX_PREVIOUS ORDER BY model, number").rows {
            ($0.string(0) ?? "", OutboxEntry(number: $0.int64(1), fileName: $0.string(2) ?? "", bytes: $0.blob(3) ?? []))
        }
    }

    func removePreviousVersion(model: String, number: Int64) throws {
        try database.run("DELETE FROM Z_OUTBOX_PREVIOUS WHERE model = ? AND number = ?", [.text(model), .integer(number)])
    }
}
