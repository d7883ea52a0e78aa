import Foundation
import UbiquityBase

/// A baseline's state file that cannot be joined: made for another model or schema, or holding
/// something no honest peer writes. Nothing of it is applied.
public enum StateFileError: Error, CustomStringConvertible, Equatable, Sendable {
    case otherModel
    case schemaVersion(String?)
    case invalid(table: String, reason: String)

    public var description: String {
        switch self {
        case .otherModel: return "the baseline's store was made for another model"
        case let .schemaVersion(version): return "the baseline's store has schema version \(version ?? "none"); this build reads \(StoreSchema.version)"
        case let .invalid(table, reason): return "the baseline's \(table) \(reason)"
        }
    }
}

// Joining a baseline into a store (DESIGN §6, Docs/Lifecycle.md "The rule"). The merge state is
// a join-semilattice — each slot goes to the writer with the larger stamp, tombstones and pairs
// to their union and larger stamp — so joining a baseline gives exactly the state of applying
// every transaction either side holds, in any order, and a store's knowledge only grows. A
// store never *replaces* its state by a baseline: what it held beyond the baseline (its own
// unsent saves, transactions whose logs are gone) stays.
extension PersistentStore {
    /// Joins the merge state in `path` (a baseline's store file holding `knowledge`) into this
    /// store, in one transaction, after validating every row against the model. Returns the
    /// objects that changed, as an import reports them. History and the outbox are untouched.
    package func joinStateFile(at path: String, knowledge: KnowledgeVector) throws -> ObjectChanges {
        let joined = try locked {
            database.resetActiveStatements()
            try database.execute("ATTACH DATABASE \(SQLiteDatabase.quoteLiteral(path)) AS baseline")
            defer {
                // Cached statements (a row lookup, say) may still be mid-read: DETACH refuses then.
                database.resetActiveStatements()
                try? database.execute("DETACH DATABASE baseline")
            }
            let baselineVersion = try checkAttachedStateFile()
            return try database.transaction {
                if baselineVersion == "1" { try upgradeSchemaFromVersion1(schema: "baseline") }
                let (writers, live) = try validateAttachedState(knowledge: knowledge)
                let changes = try holdsNothing() ? try copyAttachedState(live: live) : try mergeAttachedState(writers: writers, knowledge: knowledge)
                for (peer, number) in knowledge.entries { try advanceKnowledge(peer: peer, to: number) }
                // As after an import: what this peer stamps next is later than everything it now holds.
                for sql in ["SELECT max(stamp) FROM Z_WRITERS", "SELECT max(stamp) FROM Z_TOMBSTONES"]
                    + pairTables.values.map({ "SELECT max(stamp) FROM \($0.quotedName)" })
                    + orderTables.values.map({ "SELECT max(stamp) FROM \($0.quotedName)" }) {
                    let newest = try database.statement(sql)
                    if try newest.step(), let stamp = newest.string(0).flatMap(Stamp.init) { clock.observe(stamp) }
                    newest.reset()
                }
                try persistClock()
                return changes
            }
        }
        if !joined.isEmpty { changeObservers.notify(.joined(joined)) }
        return joined
    }

    /// The attached file's schema version, after checking it was made for this model.
    private func checkAttachedStateFile() throws -> String? {
        let attached = MetadataTable(database: database, schema: "baseline")
        guard try attached.value(.modelHash) == model.hash else { throw StateFileError.otherModel }
        let baselineVersion = try attached.value(.schemaVersion)
        guard baselineVersion == "1" || baselineVersion == String(StoreSchema.version) else { throw StateFileError.schemaVersion(baselineVersion) }
        return baselineVersion
    }

    /// Whether this store holds no object, pair or tombstone (a newcomer): joining is then a copy.
    private func holdsNothing() throws -> Bool {
        for table in tables.values.map(\.quotedName) + pairTables.values.map(\.quotedName) + orderTables.values.map(\.quotedName) + ["Z_TOMBSTONES"] {
            let any = try database.statement("SELECT 1 FROM main.\(table) LIMIT 1")
            defer { any.reset() }
            if try any.step() { return false }
        }
        return true
    }

    // MARK: Validation

    /// Checks every row of the attached state against the model and `knowledge`, as an import
    /// checks a log: object IDs, value types, finite numbers, references, writers and stamps
    /// (never beyond the baseline's knowledge, never far in the future). Returns the writers by
    /// their id in the attached file, and the objects alive in it (a store that holds nothing
    /// reports them as inserted without reading them again).
    private func validateAttachedState(knowledge: KnowledgeVector) throws -> (writers: [Int64: SlotWriter], live: [GlobalID]) {
        var writers: [Int64: SlotWriter] = [:]
        let select = try database.statement("SELECT id, peer, number, stamp FROM baseline.Z_WRITERS")
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
        for pairs in pairTables.values.sorted(by: { $0.tableName < $1.tableName }) {
            let rows = try database.statement("SELECT source, target, present, stamp, number FROM baseline.\(pairs.quotedName)")
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
            let rows = try database.statement("SELECT source, target, position, stamp, number FROM baseline.\(order.quotedName)")
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
        let tombstones = try database.statement("SELECT gid, peer, number, stamp FROM baseline.Z_TOMBSTONES")
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

    private func validateRows(of table: EntityTable, writers: [Int64: SlotWriter], live: inout [GlobalID]) throws {
        let present = try attachedColumns(of: table)
        guard present == Set(table.columns) else {
            throw StateFileError.invalid(table: table.tableName, reason: "has columns \(present.sorted().joined(separator: ", ")), the model makes \(table.columns.joined(separator: ", "))")
        }
        let rows = try database.statement("SELECT \(table.columnList) FROM baseline.\(table.quotedName)")
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
            if alive == 1 { live.append(id) }
        }
    }

    // MARK: Joining

    /// A store that holds nothing takes the baseline's rows as they are; the objects alive in
    /// them (`live`, found by the validation) are the ones it reports inserted.
    private func copyAttachedState(live: [GlobalID]) throws -> ObjectChanges {
        // Fixed tables column by column as they lie; entity tables by name (their order may
        // differ). `SELECT *` into an empty table of the same columns and indexes lets SQLite
        // copy the stored records whole (its transfer optimisation) instead of row by row.
        for table in pairTables.values.map(\.quotedName) + ["Z_TOMBSTONES", "Z_WRITERS"] {
            try database.execute("DELETE FROM main.\(table); INSERT INTO main.\(table) SELECT * FROM baseline.\(table)")
        }
        for table in tables.values {
            try database.execute("DELETE FROM main.\(table.quotedName)")
            if try columnOrder(of: table.tableName, schema: "main") == columnOrder(of: table.tableName, schema: "baseline") {
                try database.execute("INSERT INTO main.\(table.quotedName) SELECT * FROM baseline.\(table.quotedName)")
            } else {
                try database.execute("INSERT INTO main.\(table.quotedName) (\(table.columnList)) SELECT \(table.columnList) FROM baseline.\(table.quotedName)")
            }
        }
        for order in orderTables.values {
            try database.execute("DELETE FROM main.\(order.quotedName)")
        }
        for order in try attachedOrderTables() {
            try database.execute("INSERT INTO main.\(order.quotedName) (source, target, position, stamp, number) SELECT source, target, position, stamp, number FROM baseline.\(order.quotedName)")
        }
        forgetSlotWriters()
        // A newcomer's sync adds the newer logs' objects to these (`ObjectChanges.merge`): room for
        // them up front saves growing the set, which hashes every object of the baseline again.
        var inserted = Set<GlobalID>(minimumCapacity: live.count + live.count / 8)
        for id in live { inserted.insert(id) }
        return ObjectChanges(inserted: inserted)
    }

    /// The columns of `table` in `schema`, in their order.
    private func columnOrder(of table: String, schema: String) throws -> [String] {
        let info = try database.statement("SELECT name FROM pragma_table_info(\(SQLiteDatabase.quoteLiteral(table)), \(SQLiteDatabase.quoteLiteral(schema))) ORDER BY cid")
        defer { info.reset() }
        var names: [String] = []
        while try info.step() { names.append(info.string(0) ?? "") }
        return names
    }

    /// Joins the attached rows into rows this store holds: slot by slot the larger stamp wins,
    /// tombstones and pairs unite. `writers` are the attached file's, by its ids.
    private func mergeAttachedState(writers: [Int64: SlotWriter], knowledge baselineKnowledge: KnowledgeVector) throws -> ObjectChanges {
        let storeKnowledge = knowledgeCache
        // The attached writers get ids of this store's (the same transaction keeps its row).
        try database.execute("INSERT OR IGNORE INTO main.Z_WRITERS (peer, number, stamp) SELECT peer, number, stamp FROM baseline.Z_WRITERS")
        var localID: [Int64: Int64] = [:]
        let map = try database.statement("SELECT b.id, m.id FROM baseline.Z_WRITERS b JOIN main.Z_WRITERS m ON m.peer = b.peer AND m.number = b.number")
        while try map.step() { localID[map.int64(0)] = map.int64(1) }
        map.reset()

        // Liveness joins as observed-remove does: an object stays alive on a side only if the
        // other side holds no delete it has not seen (a store holds every delete its inserts saw).
        let newDeletes = try gids("SELECT DISTINCT b.gid FROM baseline.Z_TOMBSTONES b WHERE NOT EXISTS (SELECT 1 FROM main.Z_TOMBSTONES m WHERE m.gid = b.gid AND m.peer = b.peer AND m.number = b.number)")
        let unseenDeletes = try gids("SELECT DISTINCT m.gid FROM main.Z_TOMBSTONES m WHERE NOT EXISTS (SELECT 1 FROM baseline.Z_TOMBSTONES b WHERE b.gid = m.gid AND b.peer = m.peer AND b.number = m.number)")
        try database.execute("INSERT OR IGNORE INTO main.Z_TOMBSTONES SELECT * FROM baseline.Z_TOMBSTONES")

        var changes = ObjectChanges()
        for table in tables.values.sorted(by: { $0.tableName < $1.tableName }) {
            let rows = try database.statement("SELECT \(table.columnList) FROM baseline.\(table.quotedName)")
            defer { rows.reset() }
            while try rows.step() {
                var incoming = (0..<Int32(table.columns.count)).map { rows.value($0) }
                for slot in table.slotLayouts {
                    if case let .integer(id) = incoming[slot.writer] { incoming[slot.writer] = .integer(localID[id]!) }
                }
                let gid = incoming[EntityTable.gidColumn].textValue
                guard let id = GlobalID(stored: gid) else { continue }
                let incomingAlive = incoming[EntityTable.aliveColumn] == .integer(1)
                guard let existing = try loadRow(table, id) else {
                    incoming[EntityTable.versionColumn] = .integer(1)
                    try database.statement(table.writeRowSQL).bind(incoming).run()
                    changes.note(id, wasAlive: false, isAlive: incomingAlive, changed: true)
                    continue
                }
                var row = existing
                var changed = false
                for (index, slot) in table.slots.enumerated() {
                    let layout = table.slotLayouts[index]
                    guard case let .integer(theirID) = incoming[layout.writer], let theirs = try slotWriter(id: theirID) else { continue }
                    let mine: SlotWriter? = if case let .integer(myID) = row[layout.writer] { try slotWriter(id: myID) } else { nil }
                    if let mine, mine.stamp >= theirs.stamp { continue }
                    let columns = layout.attributes.map(\.column) + (layout.toOne.map { [$0.column] } ?? [])
                    if let mine, !storeKnowledge.covers(peer: theirs.stamp.peerID, number: theirs.number),
                       !baselineKnowledge.covers(peer: mine.stamp.peerID, number: mine.number) {
                        // Neither side had seen the other's write: a concurrent overwrite, recorded.
                        for column in columns where row[column] != incoming[column] {
                            try merge.recordConflict(id: id, property: String(table.columns[column].dropFirst(2)), kind: .update,
                                                     winner: (incoming[column], theirs.stamp, theirs.number), loser: (row[column], mine.stamp, mine.number), at: now)
                        }
                    }
                    for column in columns where row[column] != incoming[column] {
                        row[column] = incoming[column]
                        changed = true
                    }
                    row[layout.writer] = incoming[layout.writer]
                    _ = slot
                }
                let wasAlive = existing[EntityTable.aliveColumn] == .integer(1)
                let isAlive = (wasAlive && !newDeletes.contains(gid)) || (incomingAlive && !unseenDeletes.contains(gid))
                row[EntityTable.aliveColumn] = .integer(isAlive ? 1 : 0)
                guard row != existing else { continue }
                if case let .integer(version) = row[EntityTable.versionColumn] { row[EntityTable.versionColumn] = .integer(version + 1) }
                try database.statement(table.writeRowSQL).bind(row).run()
                changes.note(id, wasAlive: wasAlive, isAlive: isAlive, changed: changed)
            }
        }
        // Objects this store holds that the baseline does not know, but whose deletes it brings.
        for gid in newDeletes {
            guard let id = GlobalID(stored: gid), let table = tables[id.entity], var row = try loadRow(table, id),
                  row[EntityTable.aliveColumn] == .integer(1) else { continue }
            let inBaseline = try database.statement("SELECT 1 FROM baseline.\(table.quotedName) WHERE gid = ?")
            try inBaseline.bind(gid, at: 1)
            let known = try inBaseline.step()
            inBaseline.reset()
            guard !known else { continue }
            row[EntityTable.aliveColumn] = .integer(0)
            if case let .integer(version) = row[EntityTable.versionColumn] { row[EntityTable.versionColumn] = .integer(version + 1) }
            try database.statement(table.writeRowSQL).bind(row).run()
            changes.note(id, wasAlive: true, isAlive: false, changed: true)
        }
        for pairs in pairTables.values.sorted(by: { $0.tableName < $1.tableName }) {
            try mergeAttachedPairs(pairs, storeKnowledge: storeKnowledge, baselineKnowledge: baselineKnowledge, changes: &changes)
        }
        for order in try attachedOrderTables() {
            try mergeAttachedPositions(order, changes: &changes)
        }
        return changes
    }

    /// The order tables the attached file holds: a baseline rolled by a build that kept no
    /// order has none, and its members then keep the positions this store knows.
    private func attachedOrderTables() throws -> [OrderTable] {
        try orderTables.values.sorted(by: { $0.tableName < $1.tableName }).filter { order in
            let exists = try database.statement("SELECT 1 FROM baseline.sqlite_master WHERE type = 'table' AND name = ?")
            defer { exists.reset() }
            try exists.bind(order.tableName, at: 1)
            return try exists.step()
        }
    }

    /// Positions join as slots do: the larger stamp wins each (source, member).
    private func mergeAttachedPositions(_ order: OrderTable, changes: inout ObjectChanges) throws {
        let rows = try database.statement("SELECT source, target, position, stamp, number FROM baseline.\(order.quotedName)")
        defer { rows.reset() }
        while try rows.step() {
            let (source, target, position) = (rows.string(0) ?? "", rows.string(1) ?? "", rows.string(2) ?? "")
            guard let stampText = rows.string(3), let stamp = Stamp(stampText) else { continue }
            let select = try database.statement(order.selectSQL)
            try select.bind([.text(source), .text(target)])
            if try select.step(), let mine = select.string(1).flatMap(Stamp.init) {
                let same = select.string(0) == position
                select.reset()
                guard stamp > mine else { continue }
                if same { try database.run(order.writeSQL, [.text(source), .text(target), .text(position), .text(stampText), .integer(rows.int64(4))]); continue }
            } else {
                select.reset()
            }
            try database.run(order.writeSQL, [.text(source), .text(target), .text(position), .text(stampText), .integer(rows.int64(4))])
            if let id = GlobalID(stored: source) { changes.note(id, wasAlive: true, isAlive: true, changed: true) }
        }
    }

    private func mergeAttachedPairs(_ pairs: PairTable, storeKnowledge: KnowledgeVector, baselineKnowledge: KnowledgeVector,
                                    changes: inout ObjectChanges) throws {
        let rows = try database.statement("SELECT source, target, present, stamp, number FROM baseline.\(pairs.quotedName)")
        defer { rows.reset() }
        while try rows.step() {
            let (source, target) = (rows.string(0) ?? "", rows.string(1) ?? "")
            let present = rows.int64(2) == 1, number = rows.int64(4)
            guard let stampText = rows.string(3), let stamp = Stamp(stampText) else { continue }
            let select = try database.statement(pairs.selectPairSQL)
            try select.bind([.text(source), .text(target)])
            var currentPresent: Bool?
            if try select.step(), let mineText = select.string(1), let mine = Stamp(mineText) {
                let mineNumber = select.int64(2)
                currentPresent = select.int64(0) == 1
                select.reset()
                guard stamp > mine else { continue }
                if currentPresent != present, !storeKnowledge.covers(peer: stamp.peerID, number: number),
                   !baselineKnowledge.covers(peer: mine.peerID, number: mineNumber), let sourceID = GlobalID(stored: source) {
                    let theirs: SQLiteValue = .text(present ? "present" : "absent"), ours: SQLiteValue = .text(currentPresent! ? "present" : "absent")
                    try merge.recordConflict(id: sourceID, property: "\(pairs.relationship)[\(target)]", kind: .update,
                                             winner: (theirs, stamp, number), loser: (ours, mine, mineNumber), at: now)
                }
            } else {
                select.reset()
            }
            try database.run(pairs.writePairSQL, [.text(source), .text(target), .integer(present ? 1 : 0), .text(stampText), .integer(number)])
            if currentPresent != present {
                for id in [source, target].compactMap(GlobalID.init(stored:)) { changes.note(id, wasAlive: true, isAlive: true, changed: true) }
            }
        }
    }

    /// The names of the columns the attached file's table has.
    private func attachedColumns(of table: EntityTable) throws -> Set<String> {
        let info = try database.statement("SELECT name FROM pragma_table_info(\(SQLiteDatabase.quoteLiteral(table.tableName)), 'baseline')")
        defer { info.reset() }
        var names: Set<String> = []
        while try info.step() { names.insert(info.string(0) ?? "") }
        return names
    }

    private func gids(_ sql: String) throws -> Set<String> {
        let statement = try database.statement(sql)
        defer { statement.reset() }
        var result: Set<String> = []
        while try statement.step() { result.insert(statement.string(0) ?? "") }
        return result
    }
}

private extension SQLiteValue {
    var textValue: String { if case let .text(text) = self { return text } else { return "" } }
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
