import Foundation
import UbiquityBase
import UbiquityPlist

/// What a lightweight migration did to a store.
public struct ModelMigration: Sendable, Equatable, CustomStringConvertible {
    public let sourceName: String
    public let sourceHash: String
    public let destinationName: String
    public let destinationHash: String
    /// The changes carried (those that change the hash or the data), as `ModelDiff` lists them.
    public let changes: [ModelDiff.Change]
    /// Live objects before and after (objects of removed entities are dropped).
    public let objectsBefore: Int
    public let objectsAfter: Int
    /// Saves of the old version not yet in the cloud: kept to be written into the old
    /// version's folder (their data is in the migrated store, hence in its new baseline).
    public let previousVersionLogs: Int
    /// The migrations it was made of, one per model version walked through (1: straight from
    /// the source to the destination).
    public var steps = 1

    public var description: String {
        "migrated the store from model '\(sourceName)' (\(sourceHash)) to '\(destinationName)' (\(destinationHash))"
            + (steps > 1 ? " in \(steps) steps" : "") + ": \(changes.count) change(s), \(objectsAfter) of \(objectsBefore) object(s) kept"
            + (previousVersionLogs > 0 ? ", \(previousVersionLogs) unsent save(s) of the old version wait for its folder" : "")
    }
}

extension ModelMigration {
    /// One migration of the store for the steps `walk` made, in order: from the first's source
    /// to the last's destination, every change carried, the objects before the first and after
    /// the last.
    package init?(walk: [ModelMigration]) {
        guard let first = walk.first, let last = walk.last else { return nil }
        self.init(sourceName: first.sourceName, sourceHash: first.sourceHash, destinationName: last.destinationName, destinationHash: last.destinationHash,
                  changes: walk.flatMap(\.changes), objectsBefore: first.objectsBefore, objectsAfter: last.objectsAfter,
                  previousVersionLogs: walk.reduce(0) { $0 + $1.previousVersionLogs })
        steps = walk.reduce(0) { $0 + $1.steps }
    }
}

// Carries a store's tables from one model version to another in one SQLite transaction: the
// old entity and pair tables are set aside, the new ones created, every row copied through the
// plan's matching (values, to-one targets, the writer of every merge slot), pairs rebuilt where
// a relationship's storage changed, defaults filled, renamed entities' global IDs renamed, and
// the old tables dropped. Stamps and writers travel with the values, so a migrated store merges
// with other migrated stores and with baselines of the new version as if it had always been on it.
extension PersistentStore {
    /// The model hash a store file was made for, read without opening it as a store; `nil`
    /// when there is no file or it is no store.
    package static func storedModelHash(atPath path: String) -> String? {
        storedMeta(.modelHash, atPath: path)
    }

    /// The model a store file recorded (stores record their model since migrations exist).
    package static func storedModel(atPath path: String) -> ObjectModel? {
        guard let text = storedMeta(.model, atPath: path), let plist = try? PlistSeam.decode(Array(text.utf8)) else { return nil }
        return try? ObjectModel(plist: plist)
    }

    private static func storedMeta(_ key: StoreMetadataKey, atPath path: String) -> String? {
        MetadataTable.value(key, inFileAt: path)
    }

    /// The model's text as the store records it (an XML plist model file).
    static func recordedModelText(_ model: ObjectModel) -> String {
        String(decoding: model.fileContents(format: .xml), as: UTF8.self)
    }

    /// Migrates the store file at `path` as `plan` says, in one transaction. The store must not
    /// be open elsewhere in this process for writing. Throws before changing anything when the
    /// file is not a store of the plan's source model. `previousVersion` is the model hash the
    /// store is recorded as migrated from (its folder holds the old saves): the plan's source,
    /// or, for a step of a walk through versions, the walk's first version.
    package static func migrate(atPath path: String, plan: ModelMigrationPlan, previousVersion: String? = nil) throws -> ModelMigration {
        let database = try SQLiteDatabase(path: path)
        let old = plan.source, new = plan.destination
        return try database.transaction {
            let metadata = MetadataTable(database: database)
            let stored = try metadata.value(.modelHash)
            guard stored == old.hash else { throw StoreError.modelMismatch(store: stored ?? "none", model: old.hash) }
            let migrator = TableMigrator(database: database, plan: plan)
            let before = try migrator.liveObjects(old.entities.map { "E_" + $0.name })
            let unchanged = migrator.unchangedTables()
            try migrator.setOldTablesAside(keeping: unchanged)
            try migrator.createNewTables()
            try migrator.copyRows(skipping: unchanged)
            try migrator.fillPairTables()
            try migrator.fillDefaults()
            try migrator.renameGlobalIDs()
            try migrator.dropOldTables()
            try migrator.createNewTables()   // the indexes the old tables' names held
            let after = try migrator.liveObjects(new.entities.map { "E_" + $0.name })
            // Unsent saves of the old version keep their bytes for its folder; copies of sent
            // ones would otherwise be "repaired" into the new folder.
            let kept = try OutboxTable(database: database).moveAll(toPreviousVersion: old.hash)
            try SentLogTable(database: database).removeAll()
            let knowledge = try KnowledgeTable(database: database).load()
            try metadata.set(.modelHash, new.hash)
            try metadata.set(.model, recordedModelText(new))
            try metadata.set(.migratedFrom, previousVersion ?? old.hash)
            try metadata.set(.migrationKnowledge, knowledge.description)
            return ModelMigration(sourceName: old.name, sourceHash: old.hash, destinationName: new.name, destinationHash: new.hash,
                                  changes: plan.diff.changes.filter { $0.mapping != .noMigration },
                                  objectsBefore: before, objectsAfter: after, previousVersionLogs: kept)
        }
    }

    /// The knowledge this store had when it was migrated, while the new version's baselines do
    /// not hold it yet (Docs/Models.md: the migrated state must be reachable under the new hash);
    /// `nil` otherwise.
    package func migrationKnowledgeOwed() throws -> KnowledgeVector? {
        try locked { try meta(.migrationKnowledge).flatMap { KnowledgeVector(string: $0) } }
    }

    /// The baselines of the new version hold what the store had when it was migrated.
    package func clearMigrationKnowledgeOwed() throws {
        try locked { try metadata.remove(.migrationKnowledge) }
    }

    /// The model hash this store was migrated from, if it was.
    public func migratedFrom() throws -> String? { try locked { try meta(.migratedFrom) } }

    /// Saves of earlier model versions not yet written into their folders.
    package func previousVersionOutbox() throws -> [(model: String, entry: OutboxEntry)] {
        try locked { try database.unchangedRead("previousVersionOutbox") { try outbox.previousVersions() } }
    }

    /// An earlier version's save is in its folder.
    package func markPreviousVersionSent(model: String, number: Int64) throws {
        try locked { try outbox.removePreviousVersion(model: model, number: number) }
    }
}

/// The SQL of one migration, over one open transaction.
private struct TableMigrator {
    let database: SQLiteDatabase
    let plan: ModelMigrationPlan
    let oldTables: [String: EntityTable]
    let newTables: [String: EntityTable]
    let newPairTables: [String: PairTable]

    init(database: SQLiteDatabase, plan: ModelMigrationPlan) {
        self.database = database
        self.plan = plan
        oldTables = Dictionary(uniqueKeysWithValues: plan.source.entities.map { ($0.name, EntityTable(entity: $0, model: plan.source)) })
        newTables = Dictionary(uniqueKeysWithValues: plan.destination.entities.map { ($0.name, EntityTable(entity: $0, model: plan.destination)) })
        var pairs: [String: PairTable] = [:]
        for entity in plan.destination.entities {
            for relationship in entity.relationships {
                if case let .pairTable(owner, name, true) = plan.destination.storage(of: relationship, in: entity) {
                    pairs["P_\(owner)_\(name)"] = PairTable(owner: owner, relationship: name, destination: relationship.destination)
                }
            }
        }
        newPairTables = pairs
    }

    static func q(_ name: String) -> String { SQLiteDatabase.quote(name) }
    static func aside(_ table: String) -> String { q("M_" + table) }

    func liveObjects(_ tables: [String]) throws -> Int {
        var total: Int64 = 0
        for table in tables where try exists(table) {
            total += try database.statement("SELECT count(*) FROM \(Self.q(table)) WHERE alive = 1").rows { $0.int64(0) }.first ?? 0
        }
        return Int(total)
    }

    private func exists(_ table: String) throws -> Bool {
        let statement = try database.statement("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?")
        try statement.bind(table, at: 1)
        defer { _ = statement.reset() }
        return try statement.step()
    }

    /// Every entity and pair table of the store, whatever model made it.
    private func dataTables() throws -> [String] {
        try database.statement("SELECT name FROM sqlite_master WHERE type = 'table' AND (name LIKE 'E\\_%' ESCAPE '\\' OR name LIKE 'P\\_%' ESCAPE '\\') ORDER BY name")
            .rows { $0.string(0) ?? "" }
    }

    /// The entity tables the plan leaves as they are: same name, same columns, each filled from
    /// the column of its name. They stay in place (renaming a table costs a pass over the whole
    /// schema, which made a walk through many versions slow); defaults and renamed global IDs
    /// are still written into them.
    func unchangedTables() -> Set<String> {
        var kept: Set<String> = []
        for entity in plan.destination.entities {
            guard let oldEntity = plan.oldEntity(of: entity.name), oldEntity.name == entity.name,
                  let oldTable = oldTables[oldEntity.name], let newTable = newTables[entity.name],
                  oldTable.createSQL == newTable.createSQL else { continue }
            let identical = newTable.columns.dropFirst(3).allSatisfy { column in
                expression(for: column, entity: entity, oldEntity: oldEntity, oldTable: oldTable, newTable: newTable) == Self.q(column)
            }
            if identical { kept.insert(newTable.tableName) }
        }
        return kept
    }

    func setOldTablesAside(keeping kept: Set<String>) throws {
        let tables = try dataTables().filter { !kept.contains($0) }
        // Their indexes carry names the new tables' indexes take.
        let indexes = try database.statement("SELECT name, tbl_name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL ORDER BY name")
            .rows { ($0.string(0) ?? "", $0.string(1) ?? "") }
        for (index, table) in indexes where tables.contains(table) { try database.execute("DROP INDEX \(Self.q(index))") }
        for table in tables { try database.execute("ALTER TABLE \(Self.q(table)) RENAME TO \(Self.aside(table))") }
    }

    func createNewTables() throws {
        for table in newTables.values.sorted(by: { $0.tableName < $1.tableName }) { try database.execute(table.createSQL) }
        for table in newPairTables.values.sorted(by: { $0.tableName < $1.tableName }) { try database.execute(table.createSQL) }
    }

    func dropOldTables() throws {
        let aside = try database.statement("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'M\\_%' ESCAPE '\\'").rows { $0.string(0) ?? "" }
        for table in aside { try database.execute("DROP TABLE \(Self.q(table))") }
    }

    /// Each new entity's rows from its old entity's: values, to-one targets, slot writers.
    func copyRows(skipping kept: Set<String>) throws {
        for entity in plan.destination.entities {
            guard let oldEntity = plan.oldEntity(of: entity.name), let oldTable = oldTables[oldEntity.name],
                  let newTable = newTables[entity.name], !kept.contains(newTable.tableName) else { continue }
            var expressions = ["gid", "alive", "version"]
            for column in newTable.columns.dropFirst(3) {
                expressions.append(expression(for: column, entity: entity, oldEntity: oldEntity, oldTable: oldTable, newTable: newTable))
            }
            try database.execute("""
                INSERT INTO \(newTable.quotedName) (\(newTable.columnList)) SELECT \(expressions.joined(separator: ", ")) FROM \(Self.aside(oldTable.tableName))
                """)
        }
    }

    private func expression(for column: String, entity: EntityDescription, oldEntity: EntityDescription, oldTable: EntityTable, newTable: EntityTable) -> String {
        let name = String(column.dropFirst(2))
        switch column.prefix(2) {
        case "a_":
            guard let oldName = plan.oldProperty(name, of: entity.name), oldEntity.attribute(oldName) != nil else { return "NULL" }
            return Self.q("a_" + oldName)
        case "r_":
            guard let oldName = plan.oldProperty(name, of: entity.name), let old = oldEntity.relationship(oldName), !old.isToMany else { return "NULL" }
            return Self.q("r_" + oldName)
        default:   // w_<slot>: the writer of the old slots its properties come from
            guard let slot = newTable.slots.first(where: { $0.name == name }) else { return "NULL" }
            var writers: [String] = []
            for property in slot.attributes + (slot.relationship.map { [$0] } ?? []) {
                guard let oldName = plan.oldProperty(property, of: entity.name), let oldSlot = oldTable.slotOfProperty[oldName] else { continue }
                if let relationship = oldEntity.relationship(oldName), relationship.isToMany { continue }
                let writer = Self.q("w_" + oldSlot.name)
                if !writers.contains(writer) { writers.append(writer) }
            }
            switch writers.count {
            case 0: return "NULL"
            case 1: return writers[0]
            default:
                // Slots joined into one merge group: the group is won by its latest writer.
                return "(SELECT id FROM Z_WRITERS WHERE id IN (\(writers.joined(separator: ", "))) ORDER BY stamp DESC LIMIT 1)"
            }
        }
    }

    /// Each new pair table from whatever held its pairs before: an old pair table (turned round
    /// if the other side owned it) or old to-one columns (a to-one that became to-many).
    func fillPairTables() throws {
        var copied: Set<String> = []
        for entity in plan.destination.entities {
            for relationship in entity.relationships where relationship.isToMany {
                guard case let .pairTable(owner, name, selfIsSource) = plan.destination.storage(of: relationship, in: entity),
                      let table = newPairTables["P_\(owner)_\(name)"],
                      let oldEntity = plan.oldEntity(of: entity.name), let oldName = plan.oldProperty(relationship.name, of: entity.name),
                      let old = oldEntity.relationship(oldName) else { continue }
                let (side, other) = selfIsSource ? ("source", "target") : ("target", "source")
                switch plan.source.storage(of: old, in: oldEntity) {
                case let .pairTable(oldOwner, oldRelationship, oldSelfIsSource):
                    let oldTable = "P_\(oldOwner)_\(oldRelationship)"
                    guard copied.insert(oldTable).inserted else { continue }
                    let columns = oldSelfIsSource == selfIsSource ? "source, target" : "target, source"
                    try database.execute("""
                        INSERT OR IGNORE INTO \(table.quotedName) (source, target, present, stamp, number)
                            SELECT \(columns), present, stamp, number FROM \(Self.aside(oldTable))
                        """)
                case .toOneColumn:
                    guard let oldTable = oldTables[oldEntity.name], let slot = oldTable.slotOfProperty[oldName] else { continue }
                    let target = Self.q("r_" + oldName)
                    try database.execute("""
                        INSERT OR IGNORE INTO \(table.quotedName) (\(side), \(other), present, stamp, number)
                            SELECT old.gid, old.\(target), 1, w.stamp, w.number FROM \(Self.aside(oldTable.tableName)) AS old
                            JOIN Z_WRITERS AS w ON w.id = old.\(Self.q("w_" + slot.name))
                            WHERE old.alive = 1 AND old.\(target) IS NOT NULL
                        """)
                case .derivedFromInverse:
                    continue   // its pairs come from the inverse's to-one column, on the other side
                }
            }
        }
    }

    /// Existing objects get a default where the plan says (a new attribute, one made required).
    func fillDefaults() throws {
        for entity in plan.destination.entities {
            guard let table = newTables[entity.name] else { continue }
            for attribute in entity.attributes where plan.fillsDefault(attribute, of: entity.name) {
                guard let value = attribute.defaultValue else { continue }
                try database.run("UPDATE \(table.quotedName) SET \(Self.q("a_" + attribute.name)) = ? WHERE \(Self.q("a_" + attribute.name)) IS NULL AND alive = 1",
                                 [value.sqliteValue])
            }
        }
    }

    /// Global IDs name their entity: a renamed entity's objects, and every reference to them,
    /// take the new name (each peer renames the same way, so their stores still agree).
    func renameGlobalIDs() throws {
        let renamed = plan.renamedEntities.sorted { $0.key < $1.key }
        guard !renamed.isEmpty else { return }
        func renaming(_ column: String) -> String {
            let cases = renamed.map { old, new in
                "WHEN substr(\(column), 1, \(old.utf8.count + 1)) = \(SQLiteDatabase.quoteLiteral(old + "/")) THEN \(SQLiteDatabase.quoteLiteral(new + "/")) || substr(\(column), \(old.utf8.count + 2))"
            }
            return "CASE \(cases.joined(separator: " ")) ELSE \(column) END"
        }
        for table in newTables.values.sorted(by: { $0.tableName < $1.tableName }) {
            let columns = ["gid"] + table.toOneColumn.keys.sorted().map { Self.q("r_" + $0) }
            try database.execute("UPDATE \(table.quotedName) SET " + columns.map { "\($0) = \(renaming($0))" }.joined(separator: ", "))
        }
        for table in newPairTables.values.sorted(by: { $0.tableName < $1.tableName }) {
            try database.execute("UPDATE \(table.quotedName) SET source = \(renaming("source")), target = \(renaming("target"))")
        }
        try database.execute("UPDATE Z_TOMBSTONES SET gid = \(renaming("gid"))")
        // The uniqueness merges name objects too (their scopes, entity names, by the new model's constraints).
        try database.execute("UPDATE Z_UNIQUE SET gid = \(renaming("gid"))")
        try database.execute("UPDATE Z_MERGED SET loser = \(renaming("loser")), winner = \(renaming("winner"))")
        for (old, new) in renamed {
            try database.run("UPDATE Z_UNIQUE SET scope = ? WHERE scope = ?", [.text(new), .text(old)])
        }
    }
}
