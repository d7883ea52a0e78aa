/// The transaction that last wrote a merge slot: its stamp (whose peer is the writer) and number.
struct SlotWriter: Equatable {
    let stamp: Stamp
    let number: Int64
}

// `Z_WRITERS`: each slot column holds the id of its writer's row instead of the stamp's text.
// Ids are local to a store (a baseline brings its own table along with the rows that use it).
extension PersistentStore {
    /// The id of transaction `number` of `peer` in `Z_WRITERS`, added on first use. The caller
    /// holds the lock and an open transaction (whose rollback must call `forgetSlotWriters`).
    func writerID(peer: String, number: Int64, stamp: Stamp, stampText: String) throws -> Int64 {
        let select = try database.statement("SELECT id FROM Z_WRITERS WHERE peer = ? AND number = ?")
        try select.bind([.text(peer), .integer(number)])
        if try select.step() { return select.int64(0) }
        try database.run("INSERT INTO Z_WRITERS (peer, number, stamp) VALUES (?, ?, ?)", [.text(peer), .integer(number), .text(stampText)])
        let id = database.lastInsertRowID
        slotWriterCache[id] = SlotWriter(stamp: stamp, number: number)
        return id
    }

    /// The writer with `id`; `nil` when there is none or its stamp is unreadable. Cached: the
    /// merge asks for the writer of every slot an incoming change touches.
    func slotWriter(id: Int64) throws -> SlotWriter? {
        if let known = slotWriterCache[id] { return known }
        let select = try database.statement("SELECT number, stamp FROM Z_WRITERS WHERE id = ?")
        try select.bind(.integer(id), at: 1)
        guard try select.step(), let stamp = select.string(1).flatMap(Stamp.init) else { return nil }
        let writer = SlotWriter(stamp: stamp, number: select.int64(0))
        slotWriterCache[id] = writer
        return writer
    }

    /// Drops cached writers: after a rollback (an id may be given again to another writer) or
    /// after the table was replaced.
    func forgetSlotWriters() { slotWriterCache.removeAll() }
}
