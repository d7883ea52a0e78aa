import Foundation

/// One side of a concurrent overwrite as the merge saw it: the value written, and by which
/// transaction (its stamp and number).
struct ConflictSide {
    let value: ConflictValue
    let stamp: Stamp
    let number: Int64
}

/// `Z_CONFLICTS`: every concurrent overwrite, kept with typed values — the merge hands in
/// `ConflictValue`s and gets `ConflictRecord`s back; only this type knows how a value sits in
/// its column (pairs as "present"/"absent", targets as global ID text, attributes as in their
/// column). Its callers hold the store's lock.
struct ConflictHistory {
    let database: SQLiteDatabase
    let model: ObjectModel

    func record(object: GlobalID, property: String, kind: ConflictRecord.Kind,
                winner: ConflictSide, loser: ConflictSide, recorded: Double) throws {
        try database.run("""
            INSERT INTO Z_CONFLICTS (gid, property, kind, winner_value, loser_value, winner_stamp, loser_stamp,
                winner_number, loser_number, recorded) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, [.text(object.description), .text(property), .text(kind.rawValue), Self.stored(winner.value), Self.stored(loser.value),
                  .text(winner.stamp.description), .text(loser.stamp.description), .integer(winner.number), .integer(loser.number),
                  .real(recorded)])
    }

    /// The history, oldest first.
    func all() throws -> [ConflictRecord] {
        try database.statement("SELECT \(Self.columns) FROM Z_CONFLICTS ORDER BY id").rows { row in try read(row) }
    }

    func conflict(_ id: Int64) throws -> ConflictRecord? {
        let statement = try database.statement("SELECT \(Self.columns) FROM Z_CONFLICTS WHERE id = ?")
        try statement.bind([.integer(id)])
        return try statement.step() ? try read(statement) : nil
    }

    /// The largest conflict ID recorded so far (0: none).
    func lastID() throws -> Int64 {
        let statement = try database.statement("SELECT coalesce(max(id), 0) FROM Z_CONFLICTS")
        return try statement.step() ? statement.int64(0) : 0
    }

    /// The stored text values (external data references among them), for the external data
    /// garbage collection: a file a conflict's value names is kept.
    func textValues() throws -> [String] {
        var texts: [String] = []
        let statement = try database.statement("SELECT winner_value, loser_value FROM Z_CONFLICTS WHERE typeof(winner_value) = 'text' OR typeof(loser_value) = 'text'")
        while try statement.step() {
            if let text = statement.string(0) { texts.append(text) }
            if let text = statement.string(1) { texts.append(text) }
        }
        return texts
    }

    /// A column value of `property` of `entity` (as a row or pair holds it) typed by the
    /// property's declaration: what the merge records.
    func value(_ stored: SQLiteValue, of property: String, in entity: String) -> ConflictValue {
        if ConflictRecord.pair(in: property) != nil { return .member(stored == .text("present")) }
        let description = model.entity(entity)
        if description?.relationship(property) != nil {
            if case let .text(text) = stored, let target = try? GlobalID(text) { return .target(target) }
            return .target(nil)
        }
        let type = description?.attribute(property)?.type ?? stored.attributeType
        return .attribute(type.flatMap { AttributeValue(sqlite: stored, type: $0) })
    }

    private static let columns = """
        id, gid, property, kind, winner_value, loser_value, winner_stamp, loser_stamp, winner_number, loser_number, recorded
        """

    private static func stored(_ value: ConflictValue) -> SQLiteValue {
        switch value {
        case let .attribute(attribute): return attribute.sqliteValue
        case let .target(target): return target.map { .text($0.description) } ?? .null
        case let .member(present): return .text(present ? "present" : "absent")
        }
    }

    private func read(_ row: SQLiteStatement) throws -> ConflictRecord {
        let object = try GlobalID(row.string(1) ?? ""), property = row.string(2) ?? ""
        return ConflictRecord(
            id: row.int64(0), object: object, property: property,
            kind: ConflictRecord.Kind(rawValue: row.string(3) ?? "") ?? .update,
            winnerValue: value(row.value(4), of: property, in: object.entity),
            loserValue: value(row.value(5), of: property, in: object.entity),
            winnerStamp: row.string(6) ?? "", loserStamp: row.string(7) ?? "",
            winnerNumber: row.int64(8), loserNumber: row.int64(9), recorded: Date(timeIntervalSince1970: row.double(10)))
    }
}
