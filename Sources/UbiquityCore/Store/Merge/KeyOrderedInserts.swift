import Foundation

/// The rows of a batch of new objects, held back to be written in the order of their gids
/// (SQLite's BINARY order of the key), not in log order: in key order each insert finds the
/// B-tree page the previous one left hot, where random UUIDs touch a cold page per row.
///
/// Only a batch for which the order cannot matter is held back (`PersistentStore.applyImported`
/// decides: inserts only, no to-many members, no positions), so each row depends on nothing but
/// its record and its log's writer; an object that exists already (here or twice in the batch)
/// makes `write` answer `false`, and the batch is then rolled back and applied in log order.
final class KeyOrderedInserts {
    private var records: [ChangeRecord] = []
    /// Per record, its table and its log's writer, as indexes into the two short lists below
    /// (a copy of a writer per record cost a retain and release of each of its strings).
    private var places: [(table: Int32, writer: Int32)] = []
    private var tables: [EntityTable] = []
    private var writers: [TransactionWriter] = []

    init(capacity: Int) {
        records.reserveCapacity(capacity)
        places.reserveCapacity(capacity)
    }

    /// Starts the records of the next log, written by `writer`.
    func begin(_ writer: TransactionWriter) { writers.append(writer) }

    func append(_ record: ChangeRecord, table: EntityTable) {
        records.append(record)
        let tableIndex: Int
        if let last = tables.indices.last, tables[last] === table { tableIndex = last } else if let found = tables.firstIndex(where: { $0 === table }) { tableIndex = found } else {
            tables.append(table)
            tableIndex = tables.count - 1
        }
        places.append((Int32(tableIndex), Int32(writers.count - 1)))
    }

    /// Inserts every row held, in key order; `false` (rows left half written, for the caller
    /// to roll back) when one already exists.
    func write(with merge: MergeEngine) throws -> Bool {
        for index in Self.keyOrder(of: records) {
            let place = places[index]
            guard try merge.insertIfNew(records[index], table: tables[Int(place.table)], writer: writers[Int(place.writer)]) else { return false }
        }
        return true
    }

    /// The indexes of `records` in the byte order of their gids. Each is sorted by its first
    /// 16 bytes as two integers (the entity's name and most of a UUID's first group), whole
    /// bytes compared only on a tie: no String comparison (which compares canonical forms).
    static func keyOrder(of records: [ChangeRecord]) -> [Int] {
        var keys: [(high: UInt64, low: UInt64, index: Int)] = []
        keys.reserveCapacity(records.count)
        for (index, record) in records.enumerated() {
            var high: UInt64 = 0, low: UInt64 = 0, position = 0
            for byte in record.id.description.utf8 {
                // Missing bytes count as 0, below every byte a gid holds (it has no control characters).
                if position < 8 { high |= UInt64(byte) << UInt64(56 - 8 * position) } else { low |= UInt64(byte) << UInt64(56 - 8 * (position - 8)) }
                position += 1
                if position == 16 { break }
            }
            keys.append((high, low, index))
        }
        keys.sort { a, b in
            if a.high != b.high { return a.high < b.high }
            if a.low != b.low { return a.low < b.low }
            return bytesPrecede(records[a.index].id.description, records[b.index].id.description)
        }
        return keys.map(\.index)
    }

    private static func bytesPrecede(_ a: String, _ b: String) -> Bool {
        a.utf8.lexicographicallyPrecedes(b.utf8)
    }
}
