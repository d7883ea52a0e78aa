import Foundation

/// The state merge of Docs/SyncSemantics.md: local saves and imported logs both come through
/// `applyRecords(of:into:)`, so that every peer that applied the same logs holds the same
/// state. Per slot the larger stamp wins; a write its author had not seen the other of is a
/// concurrent overwrite, recorded in the conflict history; deletes leave tombstones that only
/// an insert whose author saw them all may resurrect. It owns the SQL of the entity, pair,
/// order and tombstone tables as the merge writes them. Its callers (`PersistentStore`) hold
/// the store's lock and an open transaction.
struct MergeEngine {
    let database: SQLiteDatabase
    let model: ObjectModel
    let tables: [String: EntityTable]
    let pairTables: [String: PairTable]
    /// The positions of ordered to-many relationships, by `"<owner>.<relationship>"` (`OrderTable`).
    let orderTables: [String: OrderTable]
    let slotWriters: SlotWriterTable
    let conflicts: ConflictHistory
    /// Decides `updateInPlace`'s statement inside SQLite (its functions are registered on `database`).
    let judge: InPlaceUpdateJudge
    /// The filters of IDs that may be alive (each table holds its own, told of every object
    /// the merge makes alive).
    let liveKeys: LiveKeyFilters
    /// The uniqueness constraints of each entity that has any: without, no record is looked at for them.
    let constraints: EntityConstraints
    private let lastTable = LastEntityTable()

    init(database: SQLiteDatabase, model: ObjectModel, tables: [String: EntityTable], pairTables: [String: PairTable],
         orderTables: [String: OrderTable], slotWriters: SlotWriterTable, conflicts: ConflictHistory) {
        self.database = database
        self.model = model
        self.tables = tables
        self.pairTables = pairTables
        self.orderTables = orderTables
        self.slotWriters = slotWriters
        self.conflicts = conflicts
        judge = InPlaceUpdateJudge(slotWriters: slotWriters)
        liveKeys = LiveKeyFilters(tables: Array(tables.values))
        constraints = EntityConstraints(model)
        judge.register(on: database)
    }

    /// Applies every record of `log`, noting what changed in `changes` (which may already hold
    /// earlier logs of the same batch); conflicts are recorded as of `now` (seconds since 1970).
    func applyRecords(of log: TransactionLog, into changes: inout ObjectChanges, now: Double) throws {
        let stampText = log.stamp.description
        let id = try slotWriters.id(peer: log.peerID, number: log.transactionNumber, stamp: log.stamp, stampText: stampText)
        let writer = TransactionWriter(log, stampText: stampText, id: id, appliedAt: now)
        judge.begin(writer)
        if !constraints.isEmpty {
            try applyConstrainedRecords(of: log, writer: writer, changes: &changes)
            return
        }
        for record in log.inserted { try apply(record, isInsert: true, writer: writer, changes: &changes) }
        for record in log.updated { try apply(record, isInsert: false, writer: writer, changes: &changes) }
        for id in log.deleted { try applyDelete(id, writer: writer, changes: &changes) }
    }

    /// Whether `incoming` replaces what `row` holds in its columns when one transaction wrote
    /// the slot twice — through a uniqueness loser and its winner, which arrive in either
    /// order: the larger values win, so the order does not decide.
    static func tieGoesToIncoming(_ incoming: [(Int, SQLiteValue)], _ row: [SQLiteValue]) -> Bool {
        "\(incoming.map(\.1))" > "\(incoming.map { row[$0.0] })"
    }

    func table(_ entity: String) throws -> EntityTable {
        // The last table found answers first: a log's records are mostly of one entity, and the
        // dictionary hashed the name for every record.
        if let last = lastTable.table, lastTable.name == entity { return last }
        guard let table = tables[entity] else { throw ModelError.unknownEntity(entity) }
        (lastTable.name, lastTable.table) = (entity, table)
        return table
    }

    /// The order table of `relationship` of `entity`, when it is ordered.
    func orderTable(of relationship: String, in entity: String) -> OrderTable? {
        orderTables["\(model.declaringEntity(of: relationship, in: entity)).\(relationship)"]
    }

    // MARK: Rows

    /// The row of `id`, or `nil`. With `columns`, only those (and the gid) are read; the others
    /// stay NULL in the answer, and `writeRow` compares only what was read: an update reads
    /// alive, version and the slots it touches, not every string of the row.
    func loadRow(_ table: EntityTable, _ id: GlobalID, columns: [Int]? = nil) throws -> [SQLiteValue]? {
        guard let columns else {
            let statement = try database.statement(table.selectRowSQL)
            try statement.bind(id.description, at: 1)
            guard try statement.step() else { return nil }
            return (0..<Int32(table.columns.count)).map { statement.value($0) }
        }
        // The gid is bound without a copy: `select` rebinds it before every step.
        let statement = try table.statements.select(columns, of: table, in: database)
        return try statement.withText(id.description, boundAt: 1) {
            guard try statement.step() else { return nil }
            var row = table.emptyRow(id: id)
            for (offset, column) in columns.enumerated() { row[column] = statement.value(Int32(offset)) }
            return row
        }
    }

    /// Writes `row`. A row that exists gets an `UPDATE` of the columns that differ from
    /// `existing`: rewriting the whole row would also delete and re-add its index entries.
    func writeRow(_ table: EntityTable, _ row: [SQLiteValue], existing: [SQLiteValue]?) throws {
        guard let existing else {
            try database.statement(table.writeRowSQL).bind(row).run()
            return
        }
        var columns: [Int] = []
        for index in row.indices where index != EntityTable.gidColumn && row[index] != existing[index] { columns.append(index) }
        guard !columns.isEmpty else { return }
        let statement = try table.statements.update(columns, of: table, in: database)
        for (offset, column) in columns.enumerated() { try statement.bind(row[column], at: Int32(offset + 1)) }
        try statement.bind(row[EntityTable.gidColumn], at: Int32(columns.count + 1))
        try statement.run()
    }

    /// Writes `columns` (in any order) of `row`, which exists, with one `UPDATE` of them.
    func writeColumns(_ table: EntityTable, _ row: [SQLiteValue], _ columns: [Int]) throws {
        guard !columns.isEmpty else { return }
        // In column order, as `writeRow` lists them: the statements are held by their columns.
        let columns = columns.count == 1 ? columns : columns.sorted()
        let statement = try table.statements.update(columns, of: table, in: database)
        for (offset, column) in columns.enumerated() { try statement.bind(row[column], at: Int32(offset + 1)) }
        try statement.bind(row[EntityTable.gidColumn], at: Int32(columns.count + 1))
        try statement.run()
    }

    func slotWriter(_ row: [SQLiteValue], _ table: EntityTable, _ slot: MergeSlot) throws -> SlotWriter? {
        guard case let .integer(id) = row[table.slotWriterColumn[slot.name]!] else { return nil }
        return try slotWriters.writer(id: id)
    }

    // MARK: Inserts and updates

    func apply(_ record: ChangeRecord, isInsert: Bool, writer: TransactionWriter, changes: inout ObjectChanges) throws {
        let table = try table(record.id.entity)
        let values = IncomingValues(record, table: table)
        if isInsert, try insertIfNew(record, values: values, table: table, writer: writer) {
            table.liveKeys.noteAlive(record.id)
            _ = try applyToManyChanges(record, table: table, writer: writer, changes: &changes)
            _ = try applyPositions(record, table: table, writer: writer)
            changes.note(record.id, wasAlive: false, isAlive: true, changed: true)
            return
        }
        if !isInsert, try updateInPlace(record, values: values, table: table, writer: writer) {
            changes.note(record.id, wasAlive: true, isAlive: true, changed: true)
            return
        }
        let touched = touchedSlots(of: record, values: values, in: table)
        let read = Self.columnsRead(for: touched, in: table)
        // The loaded row is not kept beside its copy: the columns that change are noted as they
        // change (copying the row on its first write and comparing it whole after cost more).
        var row: [SQLiteValue], exists: Bool
        if let loaded = try loadRow(table, record.id, columns: read) { (row, exists) = (loaded, true) } else { (row, exists) = (table.emptyRow(id: record.id), false) }
        var written: [Int] = []
        let wasAlive = row[EntityTable.aliveColumn] == .integer(1)
        var isAlive = wasAlive
        var changed = false      // a value changed: the object counts as updated
        var dirty = false        // the row changed (values or stamps): it must be written
        var blockedByDelete = false
        if !exists {
            // A row is made by the first insert or delete seen, so a missing row has no tombstones.
            isAlive = isInsert
        } else if !wasAlive {
            // Observed-remove: an insert resurrects only when its author had seen every delete.
            let covered = try tombstonesCovered(record.id, by: writer.knowledge)
            if isInsert && covered { isAlive = true } else if !covered { blockedByDelete = true }
        }

        // Attributes and to-ones, slot by slot: the larger stamp wins the whole slot.
        for index in touched {
            let layout = table.slotLayouts[index]
            let incoming = incomingValues(of: layout, in: record, values: values)
            let current: SlotWriter? = if case let .integer(id) = row[layout.writer] { try slotWriters.writer(id: id) } else { nil }
            let incomingWins = current.map { writer.stamp > $0.stamp || (writer.stamp == $0.stamp && Self.tieGoesToIncoming(incoming, row)) } ?? true
            if let current, writer.isConcurrent(withWriteOf: current.stamp.peerID, number: current.number) {
                try recordConflicts(id: record.id, table: table, row: row, incoming: incoming,
                                    incomingWins: incomingWins, writer: writer, current: current)
            }
            if blockedByDelete {
                try recordDeleteConflicts(id: record.id, incoming: incoming, writer: writer)
            }
            guard incomingWins else { continue }
            for (column, value) in incoming where row[column] != value {
                row[column] = value
                written.append(column)
                changed = true
            }
            if row[layout.writer] != writer.id {
                row[layout.writer] = writer.id
                written.append(layout.writer)
            }
            dirty = true
        }

        if try applyToManyChanges(record, table: table, writer: writer, changes: &changes) { changed = true }
        if try applyPositions(record, table: table, writer: writer) { changed = true }

        guard dirty || changed || isAlive != wasAlive || !exists else { return }
        if isAlive != wasAlive { written.append(EntityTable.aliveColumn) }
        row[EntityTable.aliveColumn] = .integer(isAlive ? 1 : 0)
        if case let .integer(version) = row[EntityTable.versionColumn] {
            row[EntityTable.versionColumn] = .integer(version + 1)
            written.append(EntityTable.versionColumn)
        }
        if exists { try writeColumns(table, row, written) } else { try writeRow(table, row, existing: nil) }
        if isAlive && !wasAlive { table.liveKeys.noteAlive(record.id) }
        changes.note(record.id, wasAlive: wasAlive, isAlive: isAlive, changed: changed)
    }

    /// The columns a merge of `touched` slots reads: liveness, version, and each slot's values and writer.
    static func columnsRead(for touched: [Int], in table: EntityTable) -> [Int] {
        var read = [EntityTable.aliveColumn, EntityTable.versionColumn]
        for index in touched {
            let layout = table.slotLayouts[index]
            for attribute in layout.attributes { read.append(attribute.column) }
            if let toOne = layout.toOne { read.append(toOne.column) }
            read.append(layout.writer)
        }
        return read
    }

    /// The common case of an import: an object this store has never seen. One `INSERT … ON
    /// CONFLICT DO NOTHING` writes it whole; `false` sends an existing row down the merge path.
    func insertIfNew(_ record: ChangeRecord, values: IncomingValues, table: EntityTable, writer: TransactionWriter) throws -> Bool {
        // Each column is bound straight from the record (no row array per object). The
        // statement keeps the last row's bindings: the columns this record leaves out are bound
        // NULL here, so SQLite reuses each text parameter's buffer (clearing every binding
        // freed them, and the next row allocated them again). A table of more than 64 columns
        // has its bindings cleared instead.
        let statement = try table.statements.insertNewRow(of: table, in: database)
        var bound = ColumnSet(count: table.columns.count)
        if !bound.isTracked { statement.reset() }
        try statement.bind(int64: 1, at: Int32(EntityTable.aliveColumn + 1))
        try statement.bind(int64: 1, at: Int32(EntityTable.versionColumn + 1))
        bound.insert(EntityTable.aliveColumn)
        bound.insert(EntityTable.versionColumn)
        bound.insert(EntityTable.gidColumn)
        // The record's own values are visited (no lookup by name per column of the table).
        var written = SlotSet()
        try values.forEach { column, slot, value in
            try statement.bind(attribute: value, at: Int32(column + 1))
            bound.insert(column)
            written.insert(slot)
        }
        for (name, change) in record.relationships {
            guard case let .toOne(target) = change, let (column, slot) = table.toOnePlace(name) else { continue }
            try statement.bind(target?.description, at: Int32(column + 1))
            bound.insert(column)
            written.insert(slot)
        }
        for (slot, layout) in table.slotLayouts.enumerated() where written.contains(slot) {
            try statement.bind(writer.id, at: Int32(layout.writer + 1))
            bound.insert(layout.writer)
        }
        try bound.forEachMissing { column in try statement.bind(SQLiteValue.null, at: Int32(column + 1)) }
        // The gid is bound without a copy, and rebound before every step.
        try statement.withText(record.id.description, boundAt: Int32(EntityTable.gidColumn + 1)) { try statement.run() }
        return database.changes == 1
    }

    /// The indexes in `table.slots` of the slots `record` writes, in name order (so every peer
    /// records their conflicts alike).
    func touchedSlots(of record: ChangeRecord, values: IncomingValues, in table: EntityTable) -> [Int] {
        if let mask = touchedMask(of: record, values: values, in: table) {
            var touched: [Int] = []
            for index in table.slotsByName where mask & (1 << UInt64(index)) != 0 { touched.append(index) }
            return touched
        }
        var touched: [Int] = []
        values.forEach { _, index, _ in
            if !touched.contains(index) { touched.append(index) }
        }
        for (name, change) in record.relationships {
            if case .toOne = change, let index = table.toOnePlace(name)?.slot, !touched.contains(index) { touched.append(index) }
        }
        touched.sort { table.slotRankByName[$0] < table.slotRankByName[$1] }
        return touched
    }

    /// The slots `record` writes as a mask (bit = index in `table.slots`), without an array
    /// or a sort; `nil` when the table has more than 64 slots.
    func touchedMask(of record: ChangeRecord, values: IncomingValues, in table: EntityTable) -> UInt64? {
        guard table.slots.count <= 64 else { return nil }
        var mask: UInt64 = 0
        values.forEach { _, index, _ in mask |= 1 << UInt64(index) }
        for (name, change) in record.relationships {
            if case .toOne = change, let index = table.toOnePlace(name)?.slot { mask |= 1 << UInt64(index) }
        }
        return mask
    }

    /// The (column, value) pairs a record writes into one slot. A to-one set to an object that
    /// does not exist (yet) is kept: a reference reads as absent until its target is alive.
    func incomingValues(of slot: SlotLayout, in record: ChangeRecord, values: IncomingValues) -> [(Int, SQLiteValue)] {
        var result: [(Int, SQLiteValue)] = []
        for (attribute, column) in slot.attributes {
            if let value = values.value(attribute, column: column) { result.append((column, value.sqliteValue)) }
        }
        if let (name, column) = slot.toOne, case let .toOne(target)? = record.relationships[name] {
            result.append((column, target.map { .text($0.description) } ?? .null))
        }
        return result
    }
}

/// Slot indexes of one record: a bit each for the first 64 (every model seen so far), a list
/// for the rest, so noting them allocates nothing per record.
private struct SlotSet {
    private var low: UInt64 = 0
    private var high: [Int] = []

    mutating func insert(_ slot: Int) {
        if slot < 64 { low |= 1 << UInt64(slot) } else if !high.contains(slot) { high.append(slot) }
    }

    func contains(_ slot: Int) -> Bool { slot < 64 ? low & (1 << UInt64(slot)) != 0 : high.contains(slot) }
}

/// The entity table `MergeEngine.table(_:)` found last. Used under the store's lock only.
private final class LastEntityTable {
    var name = ""
    var table: EntityTable?
}

/// The columns of one row bound so far, when the table has at most 64 (every model seen so
/// far); otherwise untracked, and the caller clears every binding first.
private struct ColumnSet {
    private var bits: UInt64 = 0
    private let all: UInt64
    let isTracked: Bool

    init(count: Int) {
        isTracked = count <= 64
        all = count >= 64 ? ~0 : (1 << UInt64(count)) - 1
    }

    mutating func insert(_ column: Int) {
        if column < 64 { bits |= 1 << UInt64(column) }
    }

    /// Each column not inserted (none when untracked: cleared bindings are NULL already).
    func forEachMissing(_ body: (Int) throws -> Void) rethrows {
        guard isTracked else { return }
        var missing = all & ~bits
        while missing != 0 {
            try body(missing.trailingZeroBitCount)
            missing &= missing - 1
        }
    }
}
