/// One applied transaction, local or imported, as the history keeps it.
public struct TransactionSummary: Sendable, Equatable {
    public let peerID: String
    public let number: Int64
    public let stamp: String
    public let knowledge: String
    public let date: Double
    public let isLocal: Bool
    public let inserted: Int
    public let updated: Int
    public let deleted: Int
}

/// `Z_TRANSACTIONS`: every transaction applied here, local or imported, with when it was
/// applied. Its callers hold the store's lock.
struct TransactionHistoryTable {
    let database: SQLiteDatabase

    /// Records `log` as applied at `applied` (seconds since 1970 on the store's clock).
    func record(_ log: TransactionLog, isLocal: Bool, applied: Double) throws {
        try database.run("""
            INSERT OR REPLACE INTO Z_TRANSACTIONS (peer, number, stamp, kv, date, source, inserted, updated, deleted, applied)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, [.text(log.peerID), .integer(log.transactionNumber), .text(log.stamp.description), .text(log.knowledge.description),
                  .real(log.transactionDate), .text(isLocal ? "local" : "import"), .integer(Int64(log.inserted.count)),
                  .integer(Int64(log.updated.count)), .integer(Int64(log.deleted.count)), .real(applied)])
    }

    /// The `limit` last applied, newest first.
    func recent(limit: Int) throws -> [TransactionSummary] {
        try database.statement("SELECT peer, number, stamp, kv, date, source, inserted, updated, deleted FROM Z_TRANSACTIONS ORDER BY applied DESC, stamp DESC LIMIT ?")
            .bind([.integer(Int64(limit))]).rows {
                TransactionSummary(peerID: $0.string(0) ?? "", number: $0.int64(1), stamp: $0.string(2) ?? "", knowledge: $0.string(3) ?? "",
                                   date: $0.double(4), isLocal: $0.string(5) == "local", inserted: $0.int(6), updated: $0.int(7), deleted: $0.int(8))
            }
    }

    /// When another peer's log was last applied here; `nil`: never.
    func lastImportDate() throws -> Double? {
        let statement = try database.statement("SELECT max(applied) FROM Z_TRANSACTIONS WHERE source = 'import'")
        return try statement.step() && !statement.isNull(0) ? statement.double(0) : nil
    }
}
