/// `Z_KNOWLEDGE`: for each peer, the highest of its transactions applied here (the store keeps
/// the vector cached; this is its durable copy). Its callers hold the store's lock.
struct KnowledgeTable {
    let database: SQLiteDatabase

    func load() throws -> KnowledgeVector {
        var entries: [String: Int64] = [:]
        let statement = try database.statement("SELECT peer, number FROM Z_KNOWLEDGE")
        while try statement.step() { entries[statement.string(0) ?? ""] = statement.int64(1) }
        return KnowledgeVector(entries)
    }

    func set(peer: String, to number: Int64) throws {
        try database.run("INSERT OR REPLACE INTO Z_KNOWLEDGE (peer, number) VALUES (?, ?)", [.text(peer), .integer(number)])
    }
}
