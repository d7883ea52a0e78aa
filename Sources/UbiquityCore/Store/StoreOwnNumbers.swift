import Foundation
import UbiquityPlist

// A store brought back from a backup knows fewer of its own transactions than the container
// holds. Its next save must not take a number another file already has: the peer reserves the
// numbers the container knows of, and saves are numbered above them. The knowledge stays at
// what the store applied, so the transactions between are still imported when their logs
// come (and the store's own later logs after them, again, which changes nothing).
extension PersistentStore {
    func loadOwnNumbersReserved() throws -> Int64 { try meta(.ownNumbersReserved).flatMap(Int64.init) ?? 0 }

    /// The highest own transaction number this store has applied or knows to be taken.
    public var ownNumbersTaken: Int64 { lockedState { max(knowledgeCache[peerID], ownNumbersReserved) } }

    /// Records that the container holds this peer's transactions up to `number`: the next save
    /// is numbered above it. Returns whether that raised the reservation.
    @discardableResult
    package func reserveOwnNumbers(through number: Int64) throws -> Bool {
        try locked {
            guard number > max(knowledgeCache[peerID], ownNumbersReserved) else { return false }
            try database.transaction { try reserveOwnNumbersLocked(through: number) }
            return true
        }
    }

    /// The caller holds the lock and an open transaction.
    func reserveOwnNumbersLocked(through number: Int64) throws {
        guard number > ownNumbersReserved else { return }
        try setMeta(.ownNumbersReserved, String(number))
        ownNumbersReserved = number
    }

    /// Whether the store holds own transactions above its knowledge of itself (saved while its
    /// earlier ones were missing): a baseline of it would claim less than it holds, so it rolls
    /// none until the logs between are imported.
    package func holdsOwnTransactionsAboveKnowledge() throws -> Bool {
        try locked {
            let known = knowledgeCache[peerID]
            guard ownNumbersReserved > known else { return false }
            let highest = try database.statement("""
                SELECT max(number) FROM (SELECT number FROM Z_WRITERS WHERE peer = ?1 UNION ALL SELECT number FROM Z_TOMBSTONES WHERE peer = ?1)
                """).bind([.text(peerID)]).rows { $0.int64(0) }.first ?? 0
            return highest > known
        }
    }

    /// Gives the unsent local transactions numbered `first` and above new numbers after
    /// `floor` (and after every number this store took): they were saved while the store was
    /// behind, and the container holds other transactions under their numbers. Each log is
    /// encoded again with its new number and knowledge (and so a new checksum and file name);
    /// the slots, pairs, positions and tombstones they wrote, and their history, follow; and
    /// the store's knowledge of itself goes back below them, since the transactions the
    /// container holds under those numbers were never applied here. Returns the renumbering.
    package func renumberPendingOutbox(from first: Int64, above floor: Int64) throws -> [(from: Int64, to: Int64)] {
        if isReadOnly { throw StoreError.readOnly }
        return try locked {
            do {
                return try database.transaction {
                    let entries = try outbox.pending().filter { $0.number >= first }
                    guard !entries.isEmpty else { return [] }
                    var next = max(floor, knowledgeCache[peerID], ownNumbersReserved)
                    var moves: [(from: Int64, to: Int64)] = []
                    for entry in entries {
                        var log = try TransactionLog(decoding: entry.bytes, model: model)
                        next += 1
                        log.transactionNumber = next
                        log.knowledge[peerID] = next
                        // Every write of one transaction carries its stamp: it finds the pairs and positions.
                        let stampText = log.stamp.description
                        let bytes = entry.bytes.starts(with: Array("bplist".utf8)) ? log.encodedBinary() : log.encoded(format: .xml)
                        try outbox.remove(entry.number)
                        try outbox.add(number: next, fileName: log.fileName, bytes: bytes)
                        let moved: [SQLiteValue] = [.integer(next), .text(peerID), .integer(entry.number)]
                        try database.run("UPDATE Z_WRITERS SET number = ?1 WHERE peer = ?2 AND number = ?3", moved)
                        try database.run("UPDATE Z_TOMBSTONES SET number = ?1 WHERE peer = ?2 AND number = ?3", moved)
                        for table in pairTables.values.map(\.quotedName) + orderTables.values.map(\.quotedName) {
                            try database.run("UPDATE \(table) SET number = ?1 WHERE number = ?2 AND stamp = ?3",
                                             [.integer(next), .integer(entry.number), .text(stampText)])
                        }
                        try database.run("DELETE FROM Z_TRANSACTIONS WHERE peer = ? AND number = ?", [.text(peerID), .integer(entry.number)])
                        try history.record(log, isLocal: true, applied: now)
                        moves.append((entry.number, next))
                    }
                    try reserveOwnNumbersLocked(through: next)
                    let applied = min(knowledgeCache[peerID], first - 1)
                    try knowledgeTable.set(peer: peerID, to: applied)
                    knowledgeCache[peerID] = applied
                    forgetSlotWriters()
                    return moves
                }
            } catch {
                try forgetRolledBack(clock: clock)
                throw error
            }
        }
    }
}
