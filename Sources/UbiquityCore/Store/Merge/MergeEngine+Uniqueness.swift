import Foundation
import UbiquityBase
import UbiquityPlist

// Uniqueness constraints in the merge (Docs/SyncSemantics.md, uniqueness constraints). Two
// objects of a constraint's scope are one when their inserts carried the same constrained
// values and neither insert's author had seen the other: the one with the lowest global ID
// wins, the other (the loser) is joined into it slot by slot — the larger stamp wins, as for
// any write — and every later write naming the loser goes to the winner. The decision rests on
// the inserts' values and knowledge alone, never on what arrived first, so every peer that
// applied the same logs keeps the same winner with the same slots.
//
// `Z_UNIQUE` holds each insert's constrained values (with its author's transaction and
// knowledge), `Z_MERGED` each loser's winner. A local save goes the same way; its context merged what it could see.
extension MergeEngine {
    /// `applyRecords` for a model with constraints: each record's IDs redirected from losers to
    /// their winners (when this store holds any loser), each insert of a constrained entity compared.
    func applyConstrainedRecords(of log: TransactionLog, writer: TransactionWriter, changes: inout ObjectChanges) throws {
        var anyMerged = try database.statement("SELECT EXISTS (SELECT 1 FROM Z_MERGED)").rows { $0.int64(0) == 1 }.first ?? false
        for record in log.inserted {
            let record = anyMerged ? try redirected(record, writer: writer) : record
            if constraints.isConstrained(record.id.entity) {
                // Later records of the log may name the object that just lost.
                if try applyConstrainedInsert(record, writer: writer, changes: &changes) { anyMerged = true }
            } else {
                try apply(record, isInsert: true, writer: writer, changes: &changes)
            }
        }
        for record in log.updated { try apply(anyMerged ? try redirected(record, writer: writer) : record, isInsert: false, writer: writer, changes: &changes) }
        for id in log.deleted { try applyDelete(anyMerged ? try winner(of: id) : id, writer: writer, changes: &changes) }
    }

    /// `record` with every global ID it names that lost to another given that one's. What the
    /// winner, of another entity, cannot hold is dropped and recorded (kind `uniqueness`): a
    /// target a relationship cannot take (a to-one is set to none, a member left out), and a
    /// property of the loser's entity the winner's lacks. No reference names an object of the wrong entity.
    func redirected(_ record: ChangeRecord, writer: TransactionWriter) throws -> ChangeRecord {
        let original = record.id
        var record = record
        record.id = try winner(of: record.id)
        if record.id.entity != original.entity { try recordUnheld(record, of: original, writer: writer) }
        let entity = model.entity(record.id.entity)
        func admits(_ name: String, _ moved: GlobalID) -> Bool {
            entity?.relationship(name).map { model.isKind(moved.entity, of: $0.destination) } ?? true
        }
        func follow(_ name: String, _ target: GlobalID) throws -> GlobalID? {
            let moved = try winner(of: target)
            if admits(name, moved) { return moved }
            try recordDroppedReference(from: record.id, relationship: name, to: target, stamp: writer.stamp, number: writer.number, at: writer.appliedAt)
            return nil
        }
        for (name, change) in record.relationships {
            switch change {
            case let .toOne(target?): record.relationships[name] = .toOne(try follow(name, target))
            case let .toMany(added, removed):
                // A removal of a reference that could not follow loses nothing.
                record.relationships[name] = .toMany(added: try added.compactMap { try follow(name, $0) },
                                                     removed: try removed.map(winner).filter { admits(name, $0) })
            case .toOne(nil): break
            }
        }
        for (name, placed) in record.positions {
            var moved: [GlobalID: String] = [:]
            for (member, key) in placed {
                let winner = try winner(of: member)
                if admits(name, winner) { moved[winner] = key }
            }
            record.positions[name] = moved
        }
        return record
    }

    /// The values and references a later write of `loser` made that its winner's entity (the
    /// entity of `record.id`) has no property for, in the conflict history.
    private func recordUnheld(_ record: ChangeRecord, of loser: GlobalID, writer: TransactionWriter) throws {
        guard let entity = model.entity(record.id.entity) else { return }
        for (name, value) in record.values.sorted(by: { $0.key < $1.key }) where entity.attribute(name) == nil {
            try recordConflict(id: loser, property: name, kind: .uniqueness, winner: (.null, writer.stamp, writer.number),
                               loser: (value?.sqliteValue ?? .null, writer.stamp, writer.number), at: writer.appliedAt)
        }
        for (name, change) in record.relationships.sorted(by: { $0.key < $1.key }) where entity.relationship(name) == nil {
            let targets: [GlobalID] = switch change {
            case let .toOne(target): target.map { [$0] } ?? []
            case let .toMany(added, _): added
            }
            for target in targets {
                try recordDroppedReference(from: loser, relationship: name, to: target, stamp: writer.stamp, number: writer.number, at: writer.appliedAt)
            }
        }
    }

    /// A reference from `referrer` through `relationship` to `target`, dropped because the
    /// object `target` became cannot be held there: kept in the conflict history (kind
    /// `uniqueness`) with its writer's stamp, a to-one as its target, a to-many as a pair.
    func recordDroppedReference(from referrer: GlobalID, relationship: String, to target: GlobalID, stamp: Stamp, number: Int64, at recorded: Double) throws {
        let isToMany = model.entity(referrer.entity)?.relationship(relationship)?.isToMany ?? true
        let property = isToMany ? "\(relationship)[\(target)]" : relationship
        let (kept, lost): (ConflictValue, ConflictValue) = isToMany ? (.member(false), .member(true)) : (.target(nil), .target(target))
        try conflicts.record(object: referrer, property: property, kind: .uniqueness,
                             winner: ConflictSide(value: kept, stamp: stamp, number: number),
                             loser: ConflictSide(value: lost, stamp: stamp, number: number), recorded: recorded)
    }

    /// The object `id` was merged into, or `id`.
    func winner(of id: GlobalID) throws -> GlobalID {
        guard constraints.isConstrained(id.entity) else { return id }
        let statement = try database.statement("SELECT winner FROM Z_MERGED WHERE loser = ?")
        try statement.bind(id.description, at: 1)
        guard try statement.step(), let text = statement.string(0) else { return id }
        return try GlobalID(text)
    }

    /// Applies an insert of an object of a constrained entity: notes its constrained values,
    /// and merges it with the objects it collides with (it, or they, may lose); `true` when it did.
    func applyConstrainedInsert(_ record: ChangeRecord, writer: TransactionWriter, changes: inout ObjectChanges) throws -> Bool {
        var colliding: Set<GlobalID> = []
        var keyed = false
        for constraint in constraints.of(record.id.entity) {
            guard let key = Self.key(of: record, constraint) else { continue }
            keyed = true
            let properties = constraint.properties.joined(separator: ",")
            let select = try database.statement("SELECT DISTINCT gid, peer, number FROM Z_UNIQUE WHERE scope = ? AND properties = ? AND key = ? AND gid <> ?")
            try select.bind([.text(constraint.scope), .text(properties), .blob(key), .text(record.id.description)])
            while try select.step() {
                guard let other = try? GlobalID(select.string(0) ?? ""),
                      writer.collides(withInsertOf: select.string(1) ?? "", number: select.int64(2)) else { continue }
                colliding.insert(try winner(of: other))
            }
            try database.run("INSERT OR IGNORE INTO Z_UNIQUE (scope, properties, key, gid, peer, number, knowledge) VALUES (?, ?, ?, ?, ?, ?, ?)",
                             [.text(constraint.scope), .text(properties), .blob(key), .text(record.id.description), .text(writer.peer),
                              .integer(writer.number), .text(writer.knowledge.description)])
        }
        if !keyed { try noteUnkeyedInsert(record.id, writer: writer) }
        colliding.remove(record.id)
        guard let lowest = colliding.min(), lowest < record.id else {
            try apply(record, isInsert: true, writer: writer, changes: &changes)
            for loser in colliding.sorted() { try join(loser, into: record.id, at: writer.appliedAt, changes: &changes) }
            if !colliding.isEmpty { try settleLiveness(of: record.id, changes: &changes) }
            return !colliding.isEmpty
        }
        // The new object loses: its insert is a write of the winner's slots, and what its log
        // made point at it before the insert points at the winner. A row it already has (an
        // earlier insert of the same ID, with other values) is the same object: it loses too,
        // as it would had this insert arrived first.
        if try loadRow(try table(record.id.entity), record.id, columns: [EntityTable.aliveColumn]) != nil {
            try join(record.id, into: lowest, at: writer.appliedAt, changes: &changes)
        } else {
            try noteMerged(record.id, into: lowest)
            try repointReferences(from: record.id, to: lowest, at: writer.appliedAt, changes: &changes)
            try rekeyInserts(naming: record.id, as: lowest, at: writer.appliedAt, changes: &changes)
        }
        var moved = record
        moved.id = lowest
        try apply(moved, isInsert: true, writer: writer, changes: &changes)
        try recordLoser(record.id, values: record, winner: lowest, writer: writer)
        for loser in colliding.sorted() where loser != lowest { try join(loser, into: lowest, at: writer.appliedAt, changes: &changes) }
        try settleLiveness(of: lowest, changes: &changes)
        return true
    }

    /// Notes an insert that carried no complete constrained values: it collides with nothing,
    /// but its knowledge counts when its group's liveness is settled (an object deleted and
    /// inserted again without them is alive). Its row has no properties and an empty key,
    /// which no key equals.
    private func noteUnkeyedInsert(_ id: GlobalID, writer: TransactionWriter) throws {
        try database.run("INSERT OR IGNORE INTO Z_UNIQUE (scope, properties, key, gid, peer, number, knowledge) VALUES (?, '', X'', ?, ?, ?, ?)",
                         [.text(id.entity), .text(id.description), .text(writer.peer), .integer(writer.number), .text(writer.knowledge.description)])
    }

    /// Whether a winner is alive, by the observed-remove rule over its whole group: alive when
    /// no delete names it or one of its losers, or when some insert of theirs had seen every
    /// such delete. Deciding it per row as the group forms would depend on which member
    /// arrived first (an insert that revives one member, merged into a dead other).
    func settleLiveness(of winner: GlobalID, changes: inout ObjectChanges) throws {
        let tombstones = try database.statement("SELECT peer, number FROM Z_TOMBSTONES WHERE gid = ?")
            .bind([.text(winner.description)]).rows { ($0.string(0) ?? "", $0.int64(1)) }
        var alive = tombstones.isEmpty
        if !alive {
            let inserts = try database.statement("SELECT knowledge FROM Z_UNIQUE WHERE gid = ? OR gid IN (SELECT loser FROM Z_MERGED WHERE winner = ?)")
                .bind([.text(winner.description), .text(winner.description)]).rows { KnowledgeVector(string: $0.string(0) ?? "") }
            alive = inserts.contains { knowledge in
                guard let knowledge else { return false }
                return tombstones.allSatisfy { knowledge.covers(peer: $0.0, number: $0.1) }
            }
        }
        let table = try table(winner.entity)
        guard var row = try loadRow(table, winner, columns: [EntityTable.aliveColumn, EntityTable.versionColumn]) else { return }
        let wasAlive = row[EntityTable.aliveColumn] == .integer(1)
        guard wasAlive != alive else { return }
        row[EntityTable.aliveColumn] = .integer(alive ? 1 : 0)
        if case let .integer(version) = row[EntityTable.versionColumn] { row[EntityTable.versionColumn] = .integer(version + 1) }
        try writeColumns(table, row, [EntityTable.aliveColumn, EntityTable.versionColumn])
        if alive { table.liveKeys.noteAlive(winner) }
        changes.note(winner, wasAlive: wasAlive, isAlive: alive, changed: true)
    }

    /// The constrained values of an insert as one key (their canonical bytes), or `nil` when
    /// one has no value: a missing value collides with none.
    static func key(of record: ChangeRecord, _ constraint: UniquenessConstraint) -> [UInt8]? {
        var items: [PlistValue] = []
        items.reserveCapacity(constraint.properties.count)
        for property in constraint.properties {
            if let value = record.value(of: property) {
                guard let value else { return nil }
                items.append(value.plistValue)
            } else if case let .toOne(target?)? = record.relationships[property] {
                items.append(.string(target.description))
            } else {
                return nil
            }
        }
        var bytes: [UInt8] = []
        CanonicalEncoding.append(.array(items), to: &bytes)
        return bytes
    }

    private func noteMerged(_ loser: GlobalID, into winner: GlobalID) throws {
        try database.run("UPDATE Z_MERGED SET winner = ? WHERE winner = ?", [.text(winner.description), .text(loser.description)])
        try database.run("INSERT OR REPLACE INTO Z_MERGED (loser, winner) VALUES (?, ?)", [.text(loser.description), .text(winner.description)])
    }

    /// Joins the row of `loser`, which holds an object already, into `winner`'s: each slot the
    /// loser wrote later is the winner's now (with its writer), the loser's pairs, tombstones
    /// and the references to it move to the winner, and the loser's row goes. The caller then
    /// settles the winner's liveness (`settleLiveness`); inserts whose constrained to-one named
    /// the loser meet those that named the winner (`rekeyInserts`).
    /// Conflicts are recorded as of `recorded` (seconds since 1970).
    func join(_ loser: GlobalID, into winner: GlobalID, at recorded: Double, changes: inout ObjectChanges) throws {
        try noteMerged(loser, into: winner)
        let loserTable = try table(loser.entity), winnerTable = try table(winner.entity)
        guard let lost = try loadRow(loserTable, loser), var row = try loadRow(winnerTable, winner) else { return }
        let existing = row
        for slot in loserTable.slots {
            guard let writerColumn = winnerTable.slotWriterColumn[slot.name], let theirs = try slotWriter(lost, loserTable, slot) else { continue }
            let mine = try slotWriter(row, winnerTable, slot)
            let columns = Self.columns(of: slot, from: loserTable, to: winnerTable)
            if let mine, mine.stamp > theirs.stamp || (mine.stamp == theirs.stamp && !Self.tieGoesToIncoming(columns.map { ($0.to, lost[$0.from]) }, row)) { continue }
            for (property, from, to) in columns {
                // The winner's value the loser's later write replaces is recorded, as any concurrent overwrite.
                if let mine, row[to] != lost[from] {
                    try recordConflict(id: winner, property: property, kind: .update, winner: (lost[from], theirs.stamp, theirs.number),
                                       loser: (row[to], mine.stamp, mine.number), at: recorded)
                }
                row[to] = lost[from]
            }
            row[writerColumn] = lost[loserTable.slotWriterColumn[slot.name]!]
        }
        if case let .integer(version) = row[EntityTable.versionColumn] { row[EntityTable.versionColumn] = .integer(version + 1) }
        try writeRow(winnerTable, row, existing: existing)
        try database.run("INSERT OR IGNORE INTO Z_TOMBSTONES (gid, peer, number, stamp) SELECT ?, peer, number, stamp FROM Z_TOMBSTONES WHERE gid = ?",
                         [.text(winner.description), .text(loser.description)])
        try database.run("DELETE FROM Z_TOMBSTONES WHERE gid = ?", [.text(loser.description)])
        try recordLoser(loser, row: lost, table: loserTable, winnerRow: row, winnerTable: winnerTable, at: recorded)
        try repointReferences(from: loser, to: winner, at: recorded, changes: &changes)
        try database.run("DELETE FROM \(loserTable.quotedName) WHERE gid = ?", [.text(loser.description)])
        changes.note(loser, wasAlive: lost[EntityTable.aliveColumn] == .integer(1), isAlive: false, changed: true)
        changes.note(winner, wasAlive: existing[EntityTable.aliveColumn] == .integer(1), isAlive: row[EntityTable.aliveColumn] == .integer(1), changed: true)
        try rekeyInserts(naming: loser, as: winner, at: recorded, changes: &changes)
    }

    /// To-ones naming the loser name the winner (their slots keep their writers); pairs and
    /// ordered positions of the loser become the winner's, the larger stamp winning where the
    /// winner has the row too. A reference the winner cannot hold — the relationship's
    /// destination or owner does not admit the winner's entity — is dropped instead (a to-one
    /// set to none, keeping its writer) and recorded; `recorded` dates it.
    private func repointReferences(from loser: GlobalID, to winner: GlobalID, at recorded: Double, changes: inout ObjectChanges) throws {
        for table in tables.values {
            for relationship in table.entity.relationships where !relationship.isToMany && model.isKind(loser.entity, of: relationship.destination) {
                guard let column = table.toOneColumn[relationship.name] else { continue }
                let quoted = SQLiteDatabase.quote(table.columns[column])
                let referring = try database.statement("SELECT gid FROM \(table.quotedName) WHERE \(quoted) = ?").bind([.text(loser.description)]).rows { $0.string(0) ?? "" }
                guard !referring.isEmpty else { continue }
                let follows = model.isKind(winner.entity, of: relationship.destination)
                try database.run("UPDATE \(table.quotedName) SET \(quoted) = ? WHERE \(quoted) = ?", [follows ? .text(winner.description) : .null, .text(loser.description)])
                for gid in referring {
                    guard let id = try? GlobalID(gid) else { continue }
                    changes.note(id, wasAlive: true, isAlive: true, changed: true)
                    if !follows, let writer = try toOneWriter(of: id, relationship: relationship.name, in: table) {
                        try recordDroppedReference(from: id, relationship: relationship.name, to: loser, stamp: writer.stamp, number: writer.number, at: recorded)
                    }
                }
            }
        }
        for pairs in pairTables.values {
            let ends = (source: model.isKind(winner.entity, of: pairs.owner), target: model.isKind(winner.entity, of: pairs.destination))
            if !ends.source || !ends.target { try dropPairs(of: loser, in: pairs, sources: !ends.source, targets: !ends.target, at: recorded) }
            try moveRows(of: loser, to: winner, in: pairs.quotedName, value: "present", select: pairs.selectPairSQL, write: pairs.writePairSQL)
        }
        for order in orderTables.values {
            for (end, admitted) in [("source", model.isKind(winner.entity, of: order.owner)), ("target", model.isKind(winner.entity, of: order.destination))] where !admitted {
                try database.run("DELETE FROM \(order.quotedName) WHERE \(end) = ?", [.text(loser.description)])
            }
            try moveRows(of: loser, to: winner, in: order.quotedName, value: "position", select: order.selectSQL, write: order.writeSQL)
        }
    }

    /// The writer of the slot holding `relationship`'s to-one in `id`'s row.
    private func toOneWriter(of id: GlobalID, relationship: String, in table: EntityTable) throws -> SlotWriter? {
        guard let slot = table.slots.first(where: { $0.relationship == relationship }), let row = try loadRow(table, id) else { return nil }
        return try slotWriter(row, table, slot)
    }

    /// Deletes the pairs naming `loser` as a source (`sources`) or a target (`targets`) of
    /// `pairs`, which the winner's entity cannot be; each present one goes to the conflict
    /// history, on its source, as a pair its writer added.
    private func dropPairs(of loser: GlobalID, in pairs: PairTable, sources: Bool, targets: Bool, at recorded: Double) throws {
        for (end, drop) in [("source", sources), ("target", targets)] where drop {
            let rows = try database.statement("SELECT source, target, stamp, number FROM \(pairs.quotedName) WHERE \(end) = ? AND present = 1 ORDER BY source, target")
                .bind([.text(loser.description)]).rows { ($0.string(0) ?? "", $0.string(1) ?? "", $0.string(2) ?? "", $0.int64(3)) }
            for (source, target, stampText, number) in rows {
                guard let source = try? GlobalID(source), let target = try? GlobalID(target), let stamp = Stamp(stampText) else { continue }
                try recordDroppedReference(from: source, relationship: pairs.relationship, to: target, stamp: stamp, number: number, at: recorded)
            }
            try database.run("DELETE FROM \(pairs.quotedName) WHERE \(end) = ?", [.text(loser.description)])
        }
    }

    /// The rows of a pair or order table (source, target, `value`, stamp, number) naming the
    /// loser at either end, moved to the winner; where the winner has the row too, the larger
    /// stamp stays. `select` reads (value, stamp, number) of (source, target); `write` writes a row.
    private func moveRows(of loser: GlobalID, to winner: GlobalID, in table: String, value: String, select: String, write: String) throws {
        for (mine, theirs) in [("source", "target"), ("target", "source")] {
            let rows = try database.statement("SELECT \(theirs), \(value), stamp, number FROM \(table) WHERE \(mine) = ?")
                .bind([.text(loser.description)]).rows { ($0.string(0) ?? "", $0.value(1), $0.string(2) ?? "", $0.int64(3)) }
            for (other, held, stampText, number) in rows {
                let (source, target) = mine == "source" ? (winner.description, other) : (other, winner.description)
                let current = try database.statement(select).bind([.text(source), .text(target)])
                // A tie (one transaction wrote both rows) goes to the larger value, as in the merge.
                if try current.step(), let kept = current.string(1).flatMap(Stamp.init), let incoming = Stamp(stampText),
                   kept > incoming || (kept == incoming && !Self.tieGoesToIncoming([(0, held)], [current.value(0)])) { continue }
                try database.statement(write).bind([.text(source), .text(target), held, .text(stampText), .integer(number)]).run()
            }
            try database.run("DELETE FROM \(table) WHERE \(mine) = ?", [.text(loser.description)])
        }
    }

    /// The columns of `slot`'s properties in a row of `source` and of `destination` (the winner
    /// may be of a sub-entity or a parent of the loser's: the properties of the scope are in both).
    static func columns(of slot: MergeSlot, from source: EntityTable, to destination: EntityTable) -> [(property: String, from: Int, to: Int)] {
        var columns: [(property: String, from: Int, to: Int)] = []
        for attribute in slot.attributes {
            if let from = source.attributeColumn[attribute], let to = destination.attributeColumn[attribute] { columns.append((attribute, from, to)) }
        }
        if let relationship = slot.relationship, let from = source.toOneColumn[relationship], let to = destination.toOneColumn[relationship] {
            columns.append((relationship, from, to))
        }
        return columns
    }

    /// The loser's values in the conflict history (kind `uniqueness`, on the loser's ID): each
    /// property it wrote, beside the winner's value after the merge (none where the winner, of
    /// another entity of the scope, has no such property).
    private func recordLoser(_ loser: GlobalID, row lost: [SQLiteValue], table: EntityTable, winnerRow: [SQLiteValue], winnerTable: EntityTable, at recorded: Double) throws {
        for slot in table.slots {
            guard let writer = try slotWriter(lost, table, slot) else { continue }
            let kept = winnerTable.slotWriterColumn[slot.name] == nil ? nil : try slotWriter(winnerRow, winnerTable, slot)
            var properties = slot.attributes.compactMap { name in table.attributeColumn[name].map { (name, $0, winnerTable.attributeColumn[name]) } }
            if let name = slot.relationship, let column = table.toOneColumn[name] { properties.append((name, column, winnerTable.toOneColumn[name])) }
            for (property, from, to) in properties {
                try recordConflict(id: loser, property: property, kind: .uniqueness,
                                   winner: (to.map { winnerRow[$0] } ?? .null, kept?.stamp ?? writer.stamp, kept?.number ?? writer.number),
                                   loser: (lost[from], writer.stamp, writer.number), at: recorded)
            }
        }
    }

    /// `recordLoser` for an insert that lost as it arrived: its record's values.
    private func recordLoser(_ loser: GlobalID, values record: ChangeRecord, winner: GlobalID, writer: TransactionWriter) throws {
        let table = try self.table(loser.entity), winnerTable = try self.table(winner.entity)
        guard let winnerRow = try loadRow(winnerTable, winner) else { return }
        var lost = table.emptyRow(id: loser)
        for (name, value) in record.values { if let column = table.attributeColumn[name] { lost[column] = value.sqliteValue } }
        for (name, change) in record.relationships {
            if case let .toOne(target) = change, let column = table.toOneColumn[name] { lost[column] = target.map { .text($0.description) } ?? .null }
        }
        for slot in table.slots {
            let touched = slot.attributes.contains { record.values[$0] != nil } || slot.relationship.map { record.relationships[$0] != nil } ?? false
            if touched { lost[table.slotWriterColumn[slot.name]!] = writer.id }
        }
        try recordLoser(loser, row: lost, table: table, winnerRow: winnerRow, winnerTable: winnerTable, at: writer.appliedAt)
    }
}

/// The uniqueness constraints of each entity of a model that has any, worked out once.
struct EntityConstraints {
    private let byEntity: [String: [UniquenessConstraint]]
    /// Every constraint once, in a fixed order.
    let all: [UniquenessConstraint]

    init(_ model: ObjectModel) {
        var byEntity: [String: [UniquenessConstraint]] = [:]
        for entity in model.entities where !entity.uniquenessConstraints.isEmpty {
            byEntity[entity.name] = model.uniquenessConstraints(of: entity.name)
        }
        self.byEntity = byEntity
        all = Set(byEntity.values.joined()).sorted { ($0.scope, $0.properties.joined(separator: ",")) < ($1.scope, $1.properties.joined(separator: ",")) }
    }

    var isEmpty: Bool { byEntity.isEmpty }
    func isConstrained(_ entity: String) -> Bool { byEntity[entity] != nil }
    func of(_ entity: String) -> [UniquenessConstraint] { byEntity[entity] ?? [] }
}
