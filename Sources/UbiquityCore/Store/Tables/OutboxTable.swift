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
}
