import Foundation

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

    init(_ log: TransactionLog, stampText: String, id: Int64) {
        peer = log.peerID
        number = log.transactionNumber
        stamp = log.stamp
        self.stampText = .text(stampText)
        self.id = .integer(id)
        knowledge = log.knowledge
    }

    /// Whether this transaction had not seen the write `(peer, number)` — and so, as logs are
    /// applied in causal order, the two are concurrent.
    func isConcurrent(withWriteOf otherPeer: String, number otherNumber: Int64) -> Bool {
        otherPeer != peer && !knowledge.covers(peer: otherPeer, number: otherNumber)
    }
}

// The state merge of DESIGN §4. Local saves and imported logs both come through
// `applyRecords(of:)`, so that every peer that applied the same logs holds the same state.
extension PersistentStore {
    /// Applies every record of `log`, noting what changed in `changes` (which may already hold
    /// earlier logs of the same batch). The caller holds the lock and an open transaction.
    func applyRecords(of log: TransactionLog, into changes: inout ObjectChanges) throws {
        let stampText = log.stamp.description
        let id = try writerID(peer: log.peerID, number: log.transactionNumber, stamp: log.stamp, stampText: stampText)
        let writer = TransactionWriter(log, stampText: stampText, id: id)
        for record in log.inserted { try apply(record, isInsert: true, writer: writer, changes: &changes) }
        for record in log.updated { try apply(record, isInsert: false, writer: writer, changes: &changes) }
        for id in log.deleted { try applyDelete(id, writer: writer, changes: &changes) }
    }

    // MARK: Rows

    func loadRow(_ table: EntityTable, _ id: GlobalID) throws -> [SQLiteValue]? {
        let statement = try database.statement(table.selectRowSQL)
        try statement.bind(id.description, at: 1)
        guard try statement.step() else { return nil }
        return (0..<Int32(table.columns.count)).map { statement.value($0) }
    }

    /// Writes `row`. A row that exists gets an `UPDATE` of the columns that differ from
    /// `existing`: rewriting the whole row would also delete and re-add its index entries.
    private func writeRow(_ table: EntityTable, _ row: [SQLiteValue], existing: [SQLiteValue]?) throws {
        guard let existing else {
            try database.statement(table.writeRowSQL).bind(row).run()
            return
        }
        var columns: [Int] = []
        for index in row.indices where index != EntityTable.gidColumn && row[index] != existing[index] { columns.append(index) }
        guard !columns.isEmpty else { return }
        let statement = try database.statement(table.updateSQL(columns: columns))
        for (offset, column) in columns.enumerated() { try statement.bind(row[column], at: Int32(offset + 1)) }
        try statement.bind(row[EntityTable.gidColumn], at: Int32(columns.count + 1))
        try statement.run()
    }

    private func slotWriter(_ row: [SQLiteValue], _ table: EntityTable, _ slot: MergeSlot) throws -> SlotWriter? {
        guard case let .integer(id) = row[table.slotWriterColumn[slot.name]!] else { return nil }
        return try slotWriter(id: id)
    }

    // MARK: Inserts and updates

    private func apply(_ record: ChangeRecord, isInsert: Bool, writer: TransactionWriter, changes: inout ObjectChanges) throws {
        let table = try table(record.id.entity)
        if isInsert, try insertIfNew(record, table: table, writer: writer) {
            _ = try applyToManyChanges(record, table: table, writer: writer, changes: &changes)
            _ = try applyPositions(record, table: table, writer: writer)
            changes.note(record.id, wasAlive: false, isAlive: true, changed: true)
            return
        }
        let existing = try loadRow(table, record.id)
        var row = existing ?? table.emptyRow(id: record.id)
        let wasAlive = row[EntityTable.aliveColumn] == .integer(1)
        var isAlive = wasAlive
        var changed = false      // a value changed: the object counts as updated
        var dirty = false        // the row changed (values or stamps): it must be written
        var blockedByDelete = false
        if existing == nil {
            // A row is made by the first insert or delete seen, so a missing row has no tombstones.
            isAlive = isInsert
        } else if !wasAlive {
            // Observed-remove: an insert resurrects only when its author had seen every delete.
            let covered = try tombstonesCovered(record.id, by: writer.knowledge)
            if isInsert && covered { isAlive = true } else if !covered { blockedByDelete = true }
        }

        // Attributes and to-ones, slot by slot: the larger stamp wins the whole slot.
        var touched: [Int] = []
        for name in record.values.keys {
            if let index = table.slotIndexOfProperty[name], !touched.contains(index) { touched.append(index) }
        }
        for (name, change) in record.relationships {
            if case .toOne = change, let index = table.slotIndexOfProperty[name], !touched.contains(index) { touched.append(index) }
        }
        touched.sort { table.slots[$0].name < table.slots[$1].name }
        for slot in touched.map({ table.slots[$0] }) {
            let incoming = incomingValues(of: slot, in: record, table: table)
            let current = try slotWriter(row, table, slot)
            let incomingWins = current.map { writer.stamp > $0.stamp } ?? true
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
                changed = true
            }
            row[table.slotWriterColumn[slot.name]!] = writer.id
            dirty = true
        }

        if try applyToManyChanges(record, table: table, writer: writer, changes: &changes) { changed = true }
        if try applyPositions(record, table: table, writer: writer) { changed = true }

        guard dirty || changed || isAlive != wasAlive || existing == nil else { return }
        row[EntityTable.aliveColumn] = .integer(isAlive ? 1 : 0)
        if case let .integer(version) = row[EntityTable.versionColumn] { row[EntityTable.versionColumn] = .integer(version + 1) }
        try writeRow(table, row, existing: existing)
        changes.note(record.id, wasAlive: wasAlive, isAlive: isAlive, changed: changed)
    }

    /// Applies a record's to-many changes (pairs, or to-one writes on the targets for a to-many
    /// derived from its inverse); `true` when something changed.
    private func applyToManyChanges(_ record: ChangeRecord, table: EntityTable, writer: TransactionWriter, changes: inout ObjectChanges) throws -> Bool {
        var changed = false
        for (name, change) in record.relationships {
            guard case let .toMany(added, removed) = change, let relationship = table.entity.relationship(name) else { continue }
            switch model.storage(of: relationship, in: table.entity) {
            case let .pairTable(owner, ownerRelationship, selfIsSource):
                let pairs = pairTables["\(owner).\(ownerRelationship)"]!
                for (targets, present) in [(added, true), (removed, false)] {
                    for target in targets {
                        let (source, destination) = selfIsSource ? (record.id, target) : (target, record.id)
                        if try applyPair(pairs, source: source, target: destination, present: present, writer: writer) {
                            changed = true
                            changes.note(target, wasAlive: true, isAlive: true, changed: true)
                        }
                    }
                }
            case let .derivedFromInverse(inverse):
                // Stored on the targets' to-one; apply there with this transaction's stamp.
                for target in added {
                    try apply(ChangeRecord(id: target, relationships: [inverse: .toOne(record.id)]), isInsert: false, writer: writer, changes: &changes)
                }
                for target in removed {
                    let targetTable = try self.table(target.entity)
                    if let targetRow = try loadRow(targetTable, target), targetRow[targetTable.toOneColumn[inverse]!] == .text(record.id.description) {
                        try apply(ChangeRecord(id: target, relationships: [inverse: .toOne(nil)]), isInsert: false, writer: writer, changes: &changes)
                    }
                }
                changed = changed || !added.isEmpty || !removed.isEmpty
            case .toOneColumn:
                continue
            }
        }
        return changed
    }

    /// The common case of an import: an object this store has never seen. One `INSERT … ON
    /// CONFLICT DO NOTHING` writes it whole; `false` sends an existing row down the merge path.
    private func insertIfNew(_ record: ChangeRecord, table: EntityTable, writer: TransactionWriter) throws -> Bool {
        var row = table.emptyRow(id: record.id)
        row[EntityTable.aliveColumn] = .integer(1)
        row[EntityTable.versionColumn] = .integer(1)
        for slot in table.slotLayouts {
            var wrote = false
            for (name, column) in slot.attributes {
                guard let value = record.values[name] else { continue }
                row[column] = value.sqliteValue
                wrote = true
            }
            if let (name, column) = slot.toOne, case let .toOne(target)? = record.relationships[name] {
                row[column] = target.map { .text($0.description) } ?? .null
                wrote = true
            }
            if wrote { row[slot.writer] = writer.id }
        }
        try database.statement(table.insertNewRowSQL).bind(row).run()
        return database.changes == 1
    }

    /// The (column, value) pairs a record writes into one slot. A to-one set to an object that
    /// does not exist (yet) is kept: a reference reads as absent until its target is alive.
    private func incomingValues(of slot: MergeSlot, in record: ChangeRecord, table: EntityTable) -> [(Int, SQLiteValue)] {
        var result: [(Int, SQLiteValue)] = []
        for attribute in slot.attributes {
            if let value = record.values[attribute] { result.append((table.attributeColumn[attribute]!, value.sqliteValue)) }
        }
        if let name = slot.relationship, case let .toOne(target)? = record.relationships[name] {
            result.append((table.toOneColumn[name]!, target.map { .text($0.description) } ?? .null))
        }
        return result
    }

    private func applyPair(_ pairs: PairTable, source: GlobalID, target: GlobalID, present: Bool, writer: TransactionWriter) throws -> Bool {
        let select = try database.statement(pairs.selectPairSQL)
        try select.bind([.text(source.description), .text(target.description)])
        var currentPresent: Bool?
        if try select.step(), let stampText = select.string(1), let stamp = Stamp(stampText) {
            let number = select.int64(2)
            currentPresent = select.int64(0) == 1
            let incomingWins = writer.stamp > stamp
            if writer.isConcurrent(withWriteOf: stamp.peerID, number: number), currentPresent != present {
                let mine: SQLiteValue = .text(present ? "present" : "absent"), theirs: SQLiteValue = .text(currentPresent! ? "present" : "absent")
                try insertConflict(id: source, property: "\(pairs.relationship)[\(target)]", kind: "update",
                                   winner: incomingWins ? (mine, writer.stamp, writer.number) : (theirs, stamp, number),
                                   loser: incomingWins ? (theirs, stamp, number) : (mine, writer.stamp, writer.number))
            }
            guard incomingWins else { return false }
        }
        try database.run(pairs.writePairSQL, [.text(source.description), .text(target.description), .integer(present ? 1 : 0), writer.stampText, .integer(writer.number)])
        return currentPresent != present
    }

    // MARK: Deletes

    private func applyDelete(_ id: GlobalID, writer: TransactionWriter, changes: inout ObjectChanges) throws {
        let table = try table(id.entity)
        let existing = try loadRow(table, id)
        var row = existing ?? table.emptyRow(id: id)
        let wasAlive = row[EntityTable.aliveColumn] == .integer(1)
        try database.run("INSERT OR IGNORE INTO Z_TOMBSTONES (gid, peer, number, stamp) VALUES (?, ?, ?, ?)",
                         [.text(id.description), .text(writer.peer), .integer(writer.number), writer.stampText])
        // Writes the deleter had not seen lose to the delete; each is recorded.
        for slot in table.slots {
            guard let current = try slotWriter(row, table, slot),
                  writer.isConcurrent(withWriteOf: current.stamp.peerID, number: current.number) else { continue }
            for attribute in slot.attributes {
                let column = table.attributeColumn[attribute]!
                try insertConflict(id: id, property: attribute, kind: "delete", winner: (.null, writer.stamp, writer.number),
                                   loser: (row[column], current.stamp, current.number))
            }
            if let relationship = slot.relationship {
                try insertConflict(id: id, property: relationship, kind: "delete", winner: (.null, writer.stamp, writer.number),
                                   loser: (row[table.toOneColumn[relationship]!], current.stamp, current.number))
            }
        }
        row[EntityTable.aliveColumn] = .integer(0)
        if case let .integer(version) = row[EntityTable.versionColumn] { row[EntityTable.versionColumn] = .integer(version + 1) }
        try writeRow(table, row, existing: existing)
        changes.note(id, wasAlive: wasAlive, isAlive: false, changed: true)
    }

    /// Whether `knowledge` has seen every delete of `id` applied here.
    func tombstonesCovered(_ id: GlobalID, by knowledge: KnowledgeVector) throws -> Bool {
        let statement = try database.statement("SELECT peer, number FROM Z_TOMBSTONES WHERE gid = ?")
        try statement.bind(id.description, at: 1)
        while try statement.step() {
            if !knowledge.covers(peer: statement.string(0) ?? "", number: statement.int64(1)) { return false }
        }
        return true
    }

    // MARK: Conflict history

    private func recordConflicts(id: GlobalID, table: EntityTable, row: [SQLiteValue], incoming: [(Int, SQLiteValue)],
                                 incomingWins: Bool, writer: TransactionWriter, current: SlotWriter) throws {
        for (column, value) in incoming where row[column] != value {
            let property = String(table.columns[column].dropFirst(2))
            let mine = (value, writer.stamp, writer.number), theirs = (row[column], current.stamp, current.number)
            try insertConflict(id: id, property: property, kind: "update",
                               winner: incomingWins ? mine : theirs, loser: incomingWins ? theirs : mine)
        }
    }

    private func recordDeleteConflicts(id: GlobalID, incoming: [(Int, SQLiteValue)], writer: TransactionWriter) throws {
        let table = try table(id.entity)
        let statement = try database.statement("SELECT peer, number, stamp FROM Z_TOMBSTONES WHERE gid = ? ORDER BY stamp DESC")
        try statement.bind(id.description, at: 1)
        guard try statement.step(), let stampText = statement.string(2), let stamp = Stamp(stampText) else { return }
        let number = statement.int64(1)
        for (column, value) in incoming {
            try insertConflict(id: id, property: String(table.columns[column].dropFirst(2)), kind: "delete",
                               winner: (.null, stamp, number), loser: (value, writer.stamp, writer.number))
        }
    }

    func insertConflict(id: GlobalID, property: String, kind: String,
                                winner: (SQLiteValue, Stamp, Int64), loser: (SQLiteValue, Stamp, Int64)) throws {
        try database.run("""
            INSERT INTO Z_CONFLICTS (gid, property, kind, winner_value, loser_value, winner_stamp, loser_stamp,
                winner_number, loser_number, recorded) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, [.text(id.description), .text(property), .text(kind), winner.0, loser.0,
                  .text(winner.1.description), .text(loser.1.description), .integer(winner.2), .integer(loser.2),
                  .real(now)])
    }
}
