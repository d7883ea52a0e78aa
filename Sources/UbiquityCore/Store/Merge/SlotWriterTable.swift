/// The transaction that last wrote a merge slot: its stamp (whose peer is the writer) and number.
struct SlotWriter: Equatable {
    let stamp: Stamp
    let number: Int64
}

/// `Z_WRITERS`: each slot column holds the id of its writer's row instead of the stamp's text.
/// Ids are local to a store (a baseline brings its own table along with the rows that use it).
/// Writers are cached by id: the merge asks for the writer of every slot an incoming change
/// touches. Its callers hold the store's lock.
final class SlotWriterTable {
    private let database: SQLiteDatabase
    private var cache: [Int64: SlotWriter] = [:]

    init(database: SQLiteDatabase) { self.database = database }

    /// The id of transaction `number` of `peer`, added on first use. The caller holds an open
    /// transaction (whose rollback must call `forget`).
    func id(peer: String, number: Int64, stamp: Stamp, stampText: String) throws -> Int64 {
        let select = try database.statement("SELECT id FROM Z_WRITERS WHERE peer = ? AND number = ?")
        try select.bind([.text(peer), .integer(number)])
        if try select.step() { return select.int64(0) }
        try database.run("INSERT INTO Z_WRITERS (peer, number, stamp) VALUES (?, ?, ?)", [.text(peer), .integer(number), .text(stampText)])
        let id = database.lastInsertRowID
        cache[id] = SlotWriter(stamp: stamp, number: number)
        return id
    }

    /// The writer with `id`; `nil` when there is none or its stamp is unreadable.
    func writer(id: Int64) throws -> SlotWriter? {
        if let known = cache[id] { return known }
        let select = try database.statement("SELECT number, stamp FROM Z_WRITERS WHERE id = ?")
        try select.bind(.integer(id), at: 1)
        guard try select.step(), let stamp = select.string(1).flatMap(Stamp.init) else { return nil }
        let writer = SlotWriter(stamp: stamp, number: select.int64(0))
        cache[id] = writer
        return writer
    }

    /// The writer with `id` if it is cached (no query).
    func cachedWriter(id: Int64) -> SlotWriter? { cache[id] }

    /// Drops cached writers: after a rollback (an id may be given again to another writer) or
    /// after the table was replaced.
    func forget() { cache.removeAll() }
}
