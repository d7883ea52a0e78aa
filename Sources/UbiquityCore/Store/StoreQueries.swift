import Foundation

// Reading objects back: by ID, by fetch request, relationship targets.
extension PersistentStore {
    /// The live object with `id`, or `nil` if there is none (never inserted, or deleted).
    public func snapshot(of id: GlobalID) throws -> ObjectSnapshot? {
        try locked {
            let table = try table(id.entity)
            guard let row = try loadRow(table, id), row[EntityTable.aliveColumn] == .integer(1) else { return nil }
            return try snapshot(row: row, table: table, id: id)
        }
    }

    /// Whether an object with `id` is alive in this store. Calls in a row read in one snapshot
    /// (`lockedLingeringRead`), which any other use of the store ends; most IDs never alive
    /// here are told apart without a lookup (`LiveKeyFilters`).
    public func isAlive(_ id: GlobalID) throws -> Bool {
        try lockedLingeringRead {
            guard let table = try? merge.table(id.entity) else { return false }
            if try merge.liveKeys.surelyNotAlive(id, in: table, database: database) { return false }
            return try liveness(of: id, in: table) == true
        }
    }

    /// Whether `id` was ever known here and is now deleted.
    public func isDeleted(_ id: GlobalID) throws -> Bool {
        try locked { try liveness(of: id) == false }
    }

    /// The live objects matching `request`: of its entity and, unless it says otherwise, of
    /// the entity's sub-entities.
    public func fetch(_ request: FetchRequest) throws -> [ObjectSnapshot] {
        try locked {
            if request.needsEvaluation { return try evaluatedFetch(request) }
            let (sql, arguments) = try sql(of: request)
            let ids = try database.statement(sql).bind(arguments).rows { $0.string(0) ?? "" }
            return try ids.compactMap { text in
                let id = try GlobalID(text)
                let table = try table(id.entity)
                guard let row = try loadRow(table, id) else { return nil }
                return try snapshot(row: row, table: table, id: id)
            }
        }
    }

    /// The SQL of a fetch: one table, or the entity's and its sub-entities' tables.
    func sql(of request: FetchRequest) throws -> (String, [SQLiteValue]) {
        let table = try table(request.entity)
        let others = request.includesSubentities ? try model.family(of: request.entity).dropFirst().map { try self.table($0) } : []
        return try request.sql(table: table, subentityTables: others)
    }

    /// The tables whose rows are objects of `entity`: its own and its sub-entities'.
    func familyTables(of entity: String) throws -> [EntityTable] {
        try model.family(of: entity).map { try table($0) }
    }

    /// The number of live objects matching `request` (its limit and offset ignored).
    public func count(_ request: FetchRequest) throws -> Int {
        try locked {
            var unlimited = request
            unlimited.limit = nil
            unlimited.offset = 0
            if unlimited.needsEvaluation { return try evaluatedFetch(unlimited).count }
            let (sql, arguments) = try sql(of: unlimited)
            let statement = try database.statement("SELECT count(*) FROM (\(sql))").bind(arguments)
            return try statement.step() ? statement.int(0) : 0
        }
    }

    /// The live targets of a to-many relationship of `id`: an ordered one's in its order, any other's sorted by global ID.
    public func targets(of relationshipName: String, of id: GlobalID) throws -> [GlobalID] {
        try locked {
            let table = try table(id.entity)
            guard let relationship = table.entity.relationship(relationshipName) else {
                throw ModelError.unknownProperty(entity: id.entity, property: relationshipName)
            }
            // Targets may be objects of the destination's sub-entities: each table is asked.
            let destinations = try familyTables(of: relationship.destination)
            let sql: String
            var arguments: [SQLiteValue] = []
            switch model.storage(of: relationship, in: table.entity) {
            case .toOneColumn:
                guard let target = try snapshot(of: id)?.toOne[relationshipName] ?? nil else { return [] }
                return [target]
            case let .derivedFromInverse(inverse):
                sql = destinations.map { "SELECT gid FROM \($0.quotedName) WHERE alive = 1 AND \(SQLiteDatabase.quote("r_" + inverse)) = ?" }
                    .joined(separator: " UNION ALL ") + " ORDER BY gid"
                arguments = Array(repeating: .text(id.description), count: destinations.count)
            case let .pairTable(owner, name, selfIsSource):
                let pairs = pairTables["\(owner).\(name)"]!
                let (mine, theirs) = selfIsSource ? ("source", "target") : ("target", "source")
                sql = destinations.map { "SELECT p.\(theirs) AS gid FROM \(pairs.quotedName) p JOIN \($0.quotedName) e ON e.gid = p.\(theirs) WHERE p.\(mine) = ? AND p.present = 1 AND e.alive = 1" }
                    .joined(separator: " UNION ALL ") + " ORDER BY gid"
                arguments = Array(repeating: .text(id.description), count: destinations.count)
            }
            let members = try database.statement(sql).bind(arguments).rows { try GlobalID($0.string(0) ?? "") }
            return relationship.isOrdered ? try ordered(members, of: relationshipName, of: id) : members
        }
    }

    func snapshot(row: [SQLiteValue], table: EntityTable, id: GlobalID) throws -> ObjectSnapshot {
        var values: [String: AttributeValue?] = [:]
        for attribute in table.entity.attributes {
            values[attribute.name] = .some(AttributeValue(sqlite: row[table.attributeColumn[attribute.name]!], type: attribute.type))
        }
        var toOne: [String: GlobalID?] = [:]
        for (name, column) in table.toOneColumn {
            if case let .text(text) = row[column], let target = try? GlobalID(text), try liveness(of: target) == true {
                toOne[name] = .some(target)
            } else {
                toOne[name] = .some(nil)
            }
        }
        let version: Int64
        if case let .integer(v) = row[EntityTable.versionColumn] { version = v } else { version = 0 }
        return ObjectSnapshot(id: id, values: values, toOne: toOne, version: version)
    }

    /// `true` alive, `false` deleted, `nil` never known here. The caller holds the lock.
    private func liveness(of id: GlobalID) throws -> Bool? {
        guard let table = tables[id.entity] else { return nil }
        return try liveness(of: id, in: table)
    }

    private func liveness(of id: GlobalID, in table: EntityTable) throws -> Bool? {
        // The merge's held statement, the gid bound without a copy: a context asks this for
        // every object it inserts, and building and hashing the SQL text cost more than the step.
        let statement = try table.statements.select([EntityTable.aliveColumn], of: table, in: database)
        return try statement.withText(id.description, boundAt: 1) { try statement.step() ? statement.int64(0) == 1 : nil }
    }
}
