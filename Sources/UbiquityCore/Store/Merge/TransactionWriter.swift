/// Who wrote a transaction and what it had seen: decides last-writer-wins and concurrency.
struct TransactionWriter {
    let peer: String
    let number: Int64
    let stamp: Stamp
    /// The stamp's text, as pairs and tombstones store it (formatted once per transaction).
    let stampText: SQLiteValue
    /// Its `Z_WRITERS` id, as every slot it wins stores it.
    let id: SQLiteValue
    let knowledge: KnowledgeVector
    /// When it is applied here (seconds since 1970 on the store's clock): the time the
    /// conflicts it causes are recorded with.
    let appliedAt: Double

    init(_ log: TransactionLog, stampText: String, id: Int64, appliedAt: Double) {
        peer = log.peerID
        number = log.transactionNumber
        stamp = log.stamp
        self.stampText = .text(stampText)
        self.id = .integer(id)
        knowledge = log.knowledge
        self.appliedAt = appliedAt
    }

    /// Whether this transaction had not seen the write `(peer, number)` — and so, as logs are
    /// applied in causal order, the two are concurrent.
    func isConcurrent(withWriteOf otherPeer: String, number otherNumber: Int64) -> Bool {
        otherPeer != peer && !knowledge.covers(peer: otherPeer, number: otherNumber)
    }

    /// Whether an insert of this transaction and one of `otherPeer`'s transaction `otherNumber`
    /// with equal constrained values are one object: made concurrently, or both in this
    /// transaction. A context merges its own duplicates before it saves, so only a bulk save
    /// holds two (what a store carries into another content, saved again at once), and every
    /// peer applying that log merges them alike.
    func collides(withInsertOf otherPeer: String, number otherNumber: Int64) -> Bool {
        (otherPeer == peer && otherNumber == number) || isConcurrent(withWriteOf: otherPeer, number: otherNumber)
    }
}
