import Foundation
import UbiquityBase

/// Checks every row of a baseline's state file against the model and the baseline's knowledge,
/// as an import checks a log: object IDs, value types, finite numbers, references, writers and
/// stamps (never beyond the knowledge, never far in the future).
///
/// It reads the file through `database` under `schema`: the store's own connection with the
/// file attached as `baseline`, or a connection of its own that opened the file as `main`
/// (`ConcurrentStateFileCheck`, which checks while the store copies).
struct StateFileValidator {
    let database: SQLiteDatabase
    let schema: String
    let model: ObjectModel
    let tables: [String: EntityTable]
    let pairTables: [String: PairTable]
    let orderTables: [String: OrderTable]
    let knowledge: KnowledgeVector
    /// The wall clock when the join began (seconds since 1970): stamps may not lead it by much.
    let now: Double
    /// Takes (and empties) the objects alive found so far, `liveBatchSize` at a time, when set;
    /// `validate()` then returns none of them itself.
    var liveBatches: ((inout [GlobalID]) -> Void)?
    var liveBatchSize = 16_384

    /// Returns the writers by their id in the file, and the objects alive in it (a store that
    /// holds nothing reports them as inserted without reading them again) unless `liveBatches`
    /// took them.
    func validate() throws -> (writers: [Int64: SlotWriter], live: [GlobalID]) {
        var writers: [Int64: SlotWriter] = [:]
        let select = try database.statement("SELECT id, peer, number, stamp FROM \(schema).Z_WRITERS")
        defer { select.reset() }
        while try select.step() {
            let peer = select.string(1) ?? "", number = select.int64(2)
            guard let stamp = select.string(3).flatMap(Stamp.init), stamp.peerID == peer else {
                throw StateFileError.invalid(table: "Z_WRITERS", reason: "has an unreadable stamp for \(peer.prefix(80)):\(number)")
            }
            guard number >= 1, number <= knowledge[peer] else {
                throw StateFileError.invalid(table: "Z_WRITERS", reason: "names transaction \(number) of \(peer.prefix(80)), beyond its knowledge \(knowledge)")
            }
            guard !stamp.isTooFarAhead(of: now) else { throw StateFileError.invalid(table: "Z_WRITERS", reason: "has a stamp in the far future (\(stamp))") }
            writers[select.int64(0)] = SlotWriter(stamp: stamp, number: number)
        }
        var live: [GlobalID] = []
        for table in tables.values.sorted(by: { $0.tableName < $1.tableName }) {
            try validateRows(of: table, writers: writers, live: &live)
        }
        if let liveBatches, !live.isEmpty { liveBatches(&live) }
        for pairs in pairTables.values.sorted(by: { $0.tableName < $1.tableName }) {
            let rows = try database.statement("SELECT source, target, present, stamp, number FROM \(schema).\(pairs.quotedName)")
            defer { rows.reset() }
            while try rows.step() {
                let (source, target) = (rows.string(0) ?? "", rows.string(1) ?? "")
                guard let sourceID = try? GlobalID(source), model.isKind(sourceID.entity, of: pairs.owner),
                      let targetID = try? GlobalID(target), model.isKind(targetID.entity, of: pairs.destination),
                      [0, 1].contains(rows.int64(2)), let stamp = rows.string(3).flatMap(Stamp.init),
                      knowledge.covers(peer: stamp.peerID, number: rows.int64(4)), rows.int64(4) >= 1, !stamp.isTooFarAhead(of: now) else {
                    throw StateFileError.invalid(table: pairs.tableName, reason: "has an invalid pair \(source.prefix(80)) → \(target.prefix(80))")
                }
            }
        }
        for order in try attachedOrderTables() {
            let rows = try database.statement("SELECT source, target, position, stamp, number FROM \(schema).\(order.quotedName)")
            defer { rows.reset() }
            while try rows.step() {
                let (source, target) = (rows.string(0) ?? "", rows.string(1) ?? "")
                guard let sourceID = try? GlobalID(source), model.isKind(sourceID.entity, of: order.owner),
                      let targetID = try? GlobalID(target), model.isKind(targetID.entity, of: order.destination),
                      OrderKey.isValid(rows.string(2) ?? ""), let stamp = rows.string(3).flatMap(Stamp.init),
                      knowledge.covers(peer: stamp.peerID, number: rows.int64(4)), rows.int64(4) >= 1, !stamp.isTooFarAhead(of: now) else {
                    throw StateFileError.invalid(table: order.tableName, reason: "has an invalid position \(source.prefix(80)) → \(target.prefix(80))")
                }
            }
        }
        let tombstones = try database.statement("SELECT gid, peer, number, stamp FROM \(schema).Z_TOMBSTONES")
        defer { tombstones.reset() }
        while try tombstones.step() {
            let gid = tombstones.string(0) ?? "", peer = tombstones.string(1) ?? "", number = tombstones.int64(2)
            guard let id = try? GlobalID(gid), tables[id.entity] != nil, let stamp = tombstones.string(3).flatMap(Stamp.init),
                  stamp.peerID == peer, number >= 1, number <= knowledge[peer], !stamp.isTooFarAhead(of: now) else {
                throw StateFileError.invalid(table: "Z_TOMBSTONES", reason: "has an invalid tombstone for \(gid.prefix(80))")
            }
        }
        return (writers, live)
    }

    /// The order tables the file holds: a baseline rolled by a build that kept no order has
    /// none, and its members then keep the positions the store knows.
    func attachedOrderTables() throws -> [OrderTable] {
        try orderTables.values.sorted(by: { $0.tableName < $1.tableName }).filter { order in
            let exists = try database.statement("SELECT 1 FROM \(schema).sqlite_master WHERE type = 'table' AND name = ?")
            defer { exists.reset() }
            try exists.bind(order.tableName, at: 1)
            return try exists.step()
        }
    }

    private func validateRows(of table: EntityTable, writers: [Int64: SlotWriter], live: inout [GlobalID]) throws {
        let present = try columns(of: table)
        guard present == Set(table.columns) else {
            throw StateFileError.invalid(table: table.tableName, reason: "has columns \(present.sorted().joined(separator: ", ")), the model makes \(table.columns.joined(separator: ", "))")
        }
        let rows = try database.statement("SELECT \(table.columnList) FROM \(schema).\(table.quotedName)")
        defer { rows.reset() }
        // Read in place by index: a loop over (attribute, column) pairs copied each attribute's
        // description for every row. Most values pass on their storage class (and number) alone;
        // the rest get the full check, whose errors name what is wrong.
        let attributes = table.entity.attributes
        let attributeColumns = attributes.map { Int32(table.attributeColumn[$0.name]!) }
        let attributeTypes = attributes.map(\.type)
        let toOnes = table.entity.relationships.filter { !$0.isToMany }.map { ($0, Int32(table.toOneColumn[$0.name]!)) }
        let writerColumns = table.slotLayouts.map { Int32($0.writer) }
        // Membership only: looking a writer up copied (and released) its stamp for every slot.
        let writerIDs = WriterIDSet(writers.keys)
        while try rows.step() {
            let gid = rows.string(0) ?? ""
            func invalid(_ reason: String) -> StateFileError { .invalid(table: table.tableName, reason: "row \(gid.prefix(80)) \(reason)") }
            guard let id = try? GlobalID(gid), id.entity == table.entity.name else { throw invalid("has an invalid object ID") }
            let alive = rows.int64(Int32(EntityTable.aliveColumn))
            guard alive == 0 || alive == 1 else { throw invalid("is neither alive nor dead") }
            for index in attributeColumns.indices {
                if rows.isNull(attributeColumns[index]) || StateFileValueCheck.passes(rows, column: attributeColumns[index], type: attributeTypes[index]) { continue }
                let value = rows.value(attributeColumns[index])
                if case let .real(number) = value, !number.isFinite { throw invalid("holds a number that is not finite in \(attributes[index].name)") }
                guard let typed = AttributeValue(sqlite: value, type: attributes[index].type) else {
                    throw invalid("holds a value of the wrong type in \(attributes[index].name) (\(attributes[index].type.rawValue) expected)")
                }
                // The kind and an integer type's range, as a log's reader checks them.
                do { try attributes[index].validateKind(typed, entity: table.entity.name) } catch { throw invalid("breaks the model: \(error)") }
            }
            for (relationship, column) in toOnes where !rows.isNull(column) {
                guard let target = try? GlobalID(rows.string(column) ?? ""), model.isKind(target.entity, of: relationship.destination) else {
                    throw invalid("refers to an invalid \(relationship.destination) in \(relationship.name)")
                }
            }
            for column in writerColumns where !rows.isNull(column) {
                guard writerIDs.contains(rows.int64(column)) else { throw invalid("names a writer the file does not hold") }
            }
            if alive == 1 {
                live.append(id)
                if let liveBatches, live.count >= liveBatchSize { liveBatches(&live) }
            }
        }
    }

    /// The names of the columns the file's table has.
    private func columns(of table: EntityTable) throws -> Set<String> {
        let info = try database.statement("SELECT name FROM pragma_table_info(\(SQLiteDatabase.quoteLiteral(table.tableName)), \(SQLiteDatabase.quoteLiteral(schema)))")
        defer { info.reset() }
        var names: Set<String> = []
        while try info.step() { names.insert(info.string(0) ?? "") }
        return names
    }
}

/// The ids of a state file's writers, asked once per slot of every row: a table of flags when
/// the ids are dense (SQLite numbers them from 1), a set otherwise.
private struct WriterIDSet {
    private var flags: [Bool] = []
    private var others: Set<Int64> = []

    init(_ ids: some Collection<Int64>) {
        let largest = ids.max() ?? 0
        if ids.allSatisfy({ $0 >= 0 }), largest < Int64(ids.count) * 4 + 1_024 {
            flags = [Bool](repeating: false, count: Int(largest) + 1)
            for id in ids { flags[Int(id)] = true }
        } else {
            others = Set(ids)
        }
    }

    func contains(_ id: Int64) -> Bool {
        if !flags.isEmpty { return id >= 0 && id < Int64(flags.count) && flags[Int(id)] }
        return others.contains(id)
    }
}
