import Foundation
import UbiquityBase
import UbiquityPlist

/// A baseline's state file that cannot be joined: made for another model or schema, or holding
/// something no honest peer writes. Nothing of it is applied.
public enum StateFileError: Error, CustomStringConvertible, Equatable, Sendable {
    case otherModel
    case schemaVersion(String?)
    case invalid(table: String, reason: String)
    /// Not a readable SQLite database, or not of this schema (damaged or forged, whatever its
    /// checksum says): SQLite's words for it.
    case unreadable(String)

    public var description: String {
        switch self {
        case let .unreadable(reason): return "the baseline's store is not a readable store file: \(reason)"
        case .otherModel: return "the baseline's store was made for another model"
        case let .schemaVersion(version): return "the baseline's store has schema version \(version ?? "none"); this build reads \(StoreSchema.version)"
        case let .invalid(table, reason): return "the baseline's \(table) \(reason)"
        }
    }
}

// Joining a baseline into a store (Docs/Lifecycle.md, "The rule"). The merge state is
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
        do {
            return try joinReadableStateFile(at: path, knowledge: knowledge)
        } catch let error as SQLiteError where Self.isFaultOfAttachedFile(error) {
            // The transaction rolled back: nothing of the file was kept.
            throw StateFileError.unreadable(error.message)
        }
    }

    /// Whether an error of the join is the attached file's: not a database, damaged pages, a
    /// table of the schema missing there. Errors of this store's own file (a full disk, an I/O
    /// error) are not: the baseline is not to blame for them.
    private static func isFaultOfAttachedFile(_ error: SQLiteError) -> Bool {
        error.code == 26 /* SQLITE_NOTADB */ || error.code == 11 /* SQLITE_CORRUPT */
            || (error.code == 1 /* SQLITE_ERROR */ && error.message.contains("baseline."))
    }

    private func joinReadableStateFile(at path: String, knowledge: KnowledgeVector) throws -> ObjectChanges {
        let joined = try locked {
            // The join writes rows alive in bulk, past the merge that tells the key filters.
            merge.liveKeys.dropAll()
            database.resetActiveStatements()
            try database.execute("ATTACH DATABASE \(SQLiteDatabase.quoteLiteral(path)) AS baseline")
            defer {
                // Cached statements (a row lookup, say) may still be mid-read: DETACH refuses then.
                database.resetActiveStatements()
                try? database.execute("DETACH DATABASE baseline")
            }
            let baselineVersion = try checkAttachedStateFile()
            let validator = stateFileValidator(reading: database, schema: "baseline", knowledge: knowledge)
            // Only this connection writes the store, under the lock held here: still so inside.
            let copies = try holdsNothing()
            // A copy fills empty tables with the whole baseline: written into the file once.
            let bulk: (() throws -> ObjectChanges) throws -> ObjectChanges = copies ? database.inRollbackJournal : { try $0() }
            return try bulk { try database.transaction {
                if baselineVersion == "1" { try upgradeSchemaFromVersion1(schema: "baseline") }
                let changes: ObjectChanges
                if copies {
                    // A version-1 file was just upgraded in this transaction: only this connection sees it so.
                    changes = try copyAttachedState(from: path, validator: validator, checkAlongside: baselineVersion != "1")
                    try copyAttachedUniqueness()
                } else {
                    let (writers, _) = try validator.validate()
                    var merged = try mergeAttachedState(writers: writers, knowledge: knowledge, validator: validator)
                    try mergeAttachedUniqueness(into: &merged)
                    changes = merged
                }
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
            } }
        }
        if !joined.isEmpty { changeObservers.notify(.joined(joined)) }
        return joined
    }

    /// A check of a state file holding `knowledge` against this store's model, through
    /// `database`, which names the file `schema`.
    func stateFileValidator(reading database: SQLiteDatabase, schema: String, knowledge: KnowledgeVector) -> StateFileValidator {
        StateFileValidator(database: database, schema: schema, model: model, tables: tables, pairTables: pairTables,
                           orderTables: orderTables, knowledge: knowledge, now: now)
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

    // MARK: Joining

    /// A store that holds nothing takes the baseline's rows as they are; the objects alive in
    /// them are the ones it reports inserted. With `checkAlongside` (and a second core) the
    /// file is validated on another thread while this one copies, then builds the report from
    /// what the check finds: the check, which parses every row, no longer comes before the
    /// copy. Either way nothing is kept unless the check passes, and a file that fails it gets
    /// the check's error, as if checked first.
    private func copyAttachedState(from path: String, validator: StateFileValidator, checkAlongside: Bool) throws -> ObjectChanges {
        guard checkAlongside, ProcessInfo.processInfo.activeProcessorCount > 1 else {
            let (_, live) = try validator.validate()
            try copyAttachedRows(validator)
            return ObjectChanges(joinedLive: live)
        }
        let check = ConcurrentStateFileCheck(path: path, like: validator)
        let copied = Result { try copyAttachedRows(validator) }
        // Every entity row copied may be alive: room for them all, so the set never grows.
        var inserted = Set<GlobalID>(minimumCapacity: ObjectChanges.joinCapacity((try? copied.get()) ?? 0))
        do {
            try check.collectLive(into: &inserted)
        } catch let error as StateFileError {
            throw error
        } catch {
            // The file could not be opened a second time: check it here, as on one core.
            let (_, live) = try validator.validate()
            _ = try copied.get()
            return ObjectChanges(joinedLive: live)
        }
        _ = try copied.get()
        return ObjectChanges(inserted: inserted)
    }

    /// Copies the attached rows into this store's empty tables; returns how many entity rows it copied.
    @discardableResult
    private func copyAttachedRows(_ validator: StateFileValidator) throws -> Int {
        var entityRows = 0
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
            entityRows += database.changes
        }
        for order in orderTables.values {
            try database.execute("DELETE FROM main.\(order.quotedName)")
        }
        for order in try validator.attachedOrderTables() {
            try database.execute("INSERT INTO main.\(order.quotedName) (source, target, position, stamp, number) SELECT source, target, position, stamp, number FROM baseline.\(order.quotedName)")
        }
        forgetSlotWriters()
        return entityRows
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
    private func mergeAttachedState(writers: [Int64: SlotWriter], knowledge baselineKnowledge: KnowledgeVector,
                                    validator: StateFileValidator) throws -> ObjectChanges {
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
                let changed = try joinSlots(table, of: id, into: &row, from: incoming, storeKnowledge: storeKnowledge, baselineKnowledge: baselineKnowledge)
                let wasAlive = existing[EntityTable.aliveColumn] == .integer(1)
                let isAlive = (wasAlive && !newDeletes.contains(ExactString(gid))) || (incomingAlive && !unseenDeletes.contains(ExactString(gid)))
                row[EntityTable.aliveColumn] = .integer(isAlive ? 1 : 0)
                guard row != existing else { continue }
                if case let .integer(version) = row[EntityTable.versionColumn] { row[EntityTable.versionColumn] = .integer(version + 1) }
                try database.statement(table.writeRowSQL).bind(row).run()
                changes.note(id, wasAlive: wasAlive, isAlive: isAlive, changed: changed)
            }
        }
        try deleteObjectsOnlyThisStoreHolds(deletedBy: newDeletes, changes: &changes)
        for pairs in pairTables.values.sorted(by: { $0.tableName < $1.tableName }) {
            try mergeAttachedPairs(pairs, storeKnowledge: storeKnowledge, baselineKnowledge: baselineKnowledge, changes: &changes)
        }
        for order in try validator.attachedOrderTables() {
            try mergeAttachedPositions(order, changes: &changes)
        }
        return changes
    }

    /// Joins an attached row's slots into `row`, the row this store holds: in each, the larger
    /// stamp wins, and a write neither side had seen is recorded as a conflict. Returns whether
    /// a value changed.
    private func joinSlots(_ table: EntityTable, of id: GlobalID, into row: inout [SQLiteValue], from incoming: [SQLiteValue],
                           storeKnowledge: KnowledgeVector, baselineKnowledge: KnowledgeVector) throws -> Bool {
        var changed = false
        for layout in table.slotLayouts {
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
        }
        return changed
    }

    /// Deletes the objects this store holds that the baseline does not know, but whose deletes it brings.
    private func deleteObjectsOnlyThisStoreHolds(deletedBy newDeletes: Set<ExactString>, changes: inout ObjectChanges) throws {
        for gid in newDeletes.map(\.string) {
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

    /// By exact bytes, as SQLite's DISTINCT told them apart: natural keys that differ only in
    /// normalisation are two objects.
    private func gids(_ sql: String) throws -> Set<ExactString> {
        let statement = try database.statement(sql)
        defer { statement.reset() }
        var result: Set<ExactString> = []
        while try statement.step() { result.insert(ExactString(statement.string(0) ?? "")) }
        return result
    }
}

private extension SQLiteValue {
    var textValue: String { if case let .text(text) = self { return text } else { return "" } }
}
