/// How one entity maps onto its SQLite table, with the statements the merge code reuses.
///
/// Row layout: `gid, alive, version`, one column per attribute (`a_<name>`), one per to-one
/// (`r_<name>`), then per merge slot the transaction that last wrote it (`w_<slot>`: the id of
/// its row in `Z_WRITERS`, which holds the peer, number and stamp). An integer instead of the
/// stamp's text keeps rows small: they are a fifth of the size, and imports write that much less.
///
/// A class, immutable once built: the merge looks it up for every record it applies, and a
/// struct of this many arrays and dictionaries cost a retain of each on every copy.
final class EntityTable {
    let entity: EntityDescription
    let tableName: String
    let columns: [String]
    let attributeColumn: [String: Int]
    let toOneColumn: [String: Int]
    let slots: [MergeSlot]
    /// The `w_<slot>` column of each slot, by slot name.
    let slotWriterColumn: [String: Int]
    /// Per slot (as in `slots`): its attributes with their columns, its to-one with its column,
    /// its writer column — so a new row is filled without a lookup by name per column.
    let slotLayouts: [SlotLayout]
    /// Each attribute and to-one that a slot carries, with its column and slot index (a
    /// property of no slot, such as a transient one, is not listed).
    private let attributePlaces: [(name: String, column: Int, slot: Int)]
    private let toOnePlaces: [(name: String, column: Int, slot: Int)]
    /// The slot that carries each attribute or to-one relationship.
    let slotOfProperty: [String: MergeSlot]
    /// Each slot's rank by name (`slots` is in the model's order): the merge visits the slots
    /// a record touches in name order, so every peer records their conflicts alike.
    let slotRankByName: [Int]
    /// The slots' indexes in name order (the inverse of `slotRankByName`).
    let slotsByName: [Int]
    /// `UPDATE` statements by the columns they set, made on first use.
    private let updateSQLCache = SQLCache()
    /// `SELECT` statements by the columns they read, made on first use.
    private let selectSQLCache = SQLCache()
    /// The merge's statements on this table, held once prepared.
    let statements = EntityStatements()
    /// The IDs of this table that may be alive, once a run of key checks built it.
    let liveKeys = LiveKeyFilter()
    /// Where the attributes of a log reader's last layout live in this table.
    private let layoutPlaces = LayoutPlacesCache()
    let quotedName: String
    /// Every column by name, in `columns` order. Statements name their columns: a table's
    /// physical order may differ from the model's (another declaration order of the same
    /// model, an Xcode file beside a plist one, a baseline written by such a peer).
    let columnList: String
    let selectRowSQL: String
    let writeRowSQL: String
    let insertNewRowSQL: String

    static let gidColumn = 0, aliveColumn = 1, versionColumn = 2

    init(entity: EntityDescription, model: ObjectModel) {
        self.entity = entity
        tableName = "E_" + entity.name
        var columns = ["gid", "alive", "version"]
        var attributeColumn: [String: Int] = [:]
        for attribute in entity.attributes {
            attributeColumn[attribute.name] = columns.count
            columns.append("a_" + attribute.name)
        }
        var toOneColumn: [String: Int] = [:]
        for relationship in entity.relationships where !relationship.isToMany {
            toOneColumn[relationship.name] = columns.count
            columns.append("r_" + relationship.name)
        }
        let slots = model.slots(of: entity)
        self.slots = slots
        var writerColumn: [String: Int] = [:], slotOfProperty: [String: MergeSlot] = [:]
        for slot in slots {
            writerColumn[slot.name] = columns.count
            columns.append("w_" + slot.name)
            for property in slot.attributes + (slot.relationship.map { [$0] } ?? []) {
                slotOfProperty[property] = slot
            }
        }
        self.columns = columns
        self.attributeColumn = attributeColumn
        self.toOneColumn = toOneColumn
        self.slotWriterColumn = writerColumn
        slotLayouts = slots.map { slot in
            SlotLayout(attributes: slot.attributes.map { ($0, attributeColumn[$0]!) },
                       toOne: slot.relationship.map { ($0, toOneColumn[$0]!) }, writer: writerColumn[slot.name]!)
        }
        var attributePlaces: [(name: String, column: Int, slot: Int)] = [], toOnePlaces: [(name: String, column: Int, slot: Int)] = []
        for (index, layout) in slotLayouts.enumerated() {
            for (name, column) in layout.attributes { attributePlaces.append((name, column, index)) }
            if let (name, column) = layout.toOne { toOnePlaces.append((name, column, index)) }
        }
        self.attributePlaces = attributePlaces
        self.toOnePlaces = toOnePlaces
        self.slotOfProperty = slotOfProperty
        var rank = Array(repeating: 0, count: slots.count)
        let byName = slots.indices.sorted(by: { slots[$0].name < slots[$1].name })
        for (position, index) in byName.enumerated() { rank[index] = position }
        slotRankByName = rank
        slotsByName = byName
        // Built once: the merge code runs these for every record it applies.
        quotedName = SQLiteDatabase.quote(tableName)
        columnList = columns.map(SQLiteDatabase.quote).joined(separator: ", ")
        selectRowSQL = "SELECT \(columnList) FROM \(quotedName) WHERE gid = ?"
        let placeholders = Array(repeating: "?", count: columns.count).joined(separator: ", ")
        writeRowSQL = "INSERT OR REPLACE INTO \(quotedName) (\(columnList)) VALUES (\(placeholders))"
        insertNewRowSQL = "INSERT INTO \(quotedName) (\(columnList)) VALUES (\(placeholders)) ON CONFLICT(gid) DO NOTHING"
    }

    var createSQL: String {
        var definitions = ["gid TEXT PRIMARY KEY NOT NULL", "alive INTEGER NOT NULL", "version INTEGER NOT NULL"]
        definitions += columns.dropFirst(3).map { SQLiteDatabase.quote($0) }
        let sql = "CREATE TABLE IF NOT EXISTS \(quotedName) (\(definitions.joined(separator: ", "))) WITHOUT ROWID;"
        return sql + indexSQL(schema: "main") + constraintIndexSQL
    }

    /// One index per uniqueness constraint, over its columns: a save looks up the objects
    /// holding each new object's values (`PersistentStore.objects(holding:of:)`). Partial, as a
    /// row missing the first value collides with none.
    var constraintIndexSQL: String {
        entity.uniquenessConstraints.compactMap { properties -> String? in
            let columns = properties.compactMap { name in (attributeColumn[name] ?? toOneColumn[name]).map { SQLiteDatabase.quote(self.columns[$0]) } }
            guard columns.count == properties.count, let first = columns.first else { return nil }
            let name = SQLiteDatabase.quote("U_\(entity.name)_\(properties.joined(separator: "_"))")
            return " CREATE INDEX IF NOT EXISTS \(name) ON \(quotedName)(\(columns.joined(separator: ", "))) WHERE \(first) IS NOT NULL;"
        }.joined()
    }

    /// One index per to-one column, for the objects that point at a given target. Partial: rows
    /// without a target (often most of them) cost an import no index entry.
    func indexSQL(schema: String) -> String {
        toOneColumn.keys.sorted().map { name in
            let column = SQLiteDatabase.quote("r_" + name)
            return " CREATE INDEX IF NOT EXISTS \(schema).\(SQLiteDatabase.quote("I_\(entity.name)_\(name)")) ON \(quotedName)(\(column)) WHERE \(column) IS NOT NULL;"
        }.joined()
    }

    /// Drops the to-one indexes (version 1 indexed every row, with or without a target).
    func dropIndexSQL(schema: String) -> String {
        toOneColumn.keys.sorted().map { " DROP INDEX IF EXISTS \(schema).\(SQLiteDatabase.quote("I_\(entity.name)_\($0)"));" }.joined()
    }

    /// `UPDATE <table> SET <columns> = ? … WHERE gid = ?`: the gid is the last parameter.
    func updateSQL(columns: [Int]) -> String {
        updateSQLCache.sql(for: columns) {
            "UPDATE \(quotedName) SET " + columns.map { SQLiteDatabase.quote(self.columns[$0]) + " = ?" }.joined(separator: ", ") + " WHERE gid = ?"
        }
    }

    /// `MergeEngine.updateInPlace`'s statement: the values of `columns` are parameters 1…n,
    /// the writer's id n+1 (set in every `writers` column), the gid n+2; it changes the row only
    /// when it is alive, `ubiq_wins` over every writer and `ubiq_changes` some value.
    func inPlaceUpdateSQL(columns: [Int], writers: [Int]) -> String {
        let name = { SQLiteDatabase.quote(self.columns[$0]) }
        let sets = columns.enumerated().map { "\(name($1)) = ?\($0 + 1)" } + writers.map { "\(name($0)) = ?\(columns.count + 1)" }
        let comparisons = columns.enumerated().map { "\(name($1)), ?\($0 + 1)" }
        return "UPDATE \(quotedName) SET " + sets.joined(separator: ", ") + ", version = version + 1 WHERE gid = ?\(columns.count + 2) AND alive = 1"
            + " AND ubiq_wins(" + writers.map(name).joined(separator: ", ") + ") AND ubiq_changes(" + comparisons.joined(separator: ", ") + ")"
    }

    /// `SELECT <columns> FROM <table> WHERE gid = ?`.
    func selectSQL(columns: [Int]) -> String {
        selectSQLCache.sql(for: columns) {
            "SELECT " + columns.map { SQLiteDatabase.quote(self.columns[$0]) }.joined(separator: ", ") + " FROM \(quotedName) WHERE gid = ?"
        }
    }

    /// The column and slot index of attribute `name`, found in a short list rather than by hash.
    func attributePlace(_ name: String) -> (column: Int, slot: Int)? {
        for place in attributePlaces where place.name == name { return (place.column, place.slot) }
        return nil
    }

    /// The places of `layout`'s attributes in this table (worked out once per layout).
    func places(for layout: AttributeLayout) -> LayoutPlaces { layoutPlaces.places(for: layout, in: self) }

    /// The column and slot index of to-one relationship `name`.
    func toOnePlace(_ name: String) -> (column: Int, slot: Int)? {
        for place in toOnePlaces where place.name == name { return (place.column, place.slot) }
        return nil
    }

    func emptyRow(id: GlobalID) -> [SQLiteValue] {
        var row = Array(repeating: SQLiteValue.null, count: columns.count)
        row[Self.gidColumn] = .text(id.description)
        row[Self.aliveColumn] = .integer(0)
        row[Self.versionColumn] = .integer(0)
        return row
    }
}

/// Where one merge slot lives in its entity's row.
struct SlotLayout {
    let attributes: [(name: String, column: Int)]
    let toOne: (name: String, column: Int)?
    let writer: Int
}

/// SQL text by the columns it touches. Used under the store's lock only.
private final class SQLCache {
    private var texts: [[Int]: String] = [:]

    func sql(for columns: [Int], make: () -> String) -> String {
        if let known = texts[columns] { return known }
        let text = make()
        texts[columns] = text
        return text
    }
}

/// The table of one pair-stored relationship (many-to-many, or to-many without inverse):
/// each (source, target) pair with whether it is present, and the stamp and writer of its last change.
struct PairTable {
    let owner: String
    let relationship: String
    let destination: String
    let tableName: String
    let quotedName: String
    let selectPairSQL: String
    let writePairSQL: String

    init(owner: String, relationship: String, destination: String) {
        self.owner = owner
        self.relationship = relationship
        self.destination = destination
        tableName = "P_\(owner)_\(relationship)"
        quotedName = SQLiteDatabase.quote(tableName)
        selectPairSQL = "SELECT present, stamp, number FROM \(quotedName) WHERE source = ? AND target = ?"
        writePairSQL = "INSERT OR REPLACE INTO \(quotedName) (source, target, present, stamp, number) VALUES (?, ?, ?, ?, ?)"
    }

    var createSQL: String {
        "CREATE TABLE IF NOT EXISTS \(quotedName) (source TEXT NOT NULL, target TEXT NOT NULL, present INTEGER NOT NULL, stamp TEXT NOT NULL, number INTEGER NOT NULL, PRIMARY KEY (source, target)) WITHOUT ROWID; CREATE INDEX IF NOT EXISTS \(SQLiteDatabase.quote("I_" + tableName)) ON \(quotedName)(target);"
    }
}
