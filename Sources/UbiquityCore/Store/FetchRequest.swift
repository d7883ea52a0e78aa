/// A comparison in a predicate.
public enum ComparisonOperator: String, Sendable, CaseIterable {
    case equal = "=="
    case notEqual = "!="
    case less = "<"
    case lessOrEqual = "<="
    case greater = ">"
    case greaterOrEqual = ">="
    /// Substring match on strings.
    case contains = "CONTAINS"
    /// Prefix match on strings.
    case beginsWith = "BEGINSWITH"
}

/// A condition on an entity's attributes and to-one relationships, combined with and/or/not.
public indirect enum FetchPredicate: Sendable, Equatable {
    /// `property op value`; a to-one relationship compares its target's global ID (`.string`);
    /// `nil` matches absent values with `==` and present ones with `!=`.
    case comparison(String, ComparisonOperator, AttributeValue?)
    case and([FetchPredicate])
    case or([FetchPredicate])
    case not(FetchPredicate)
}

/// An ordering of fetched objects by one attribute.
public struct FetchSortDescriptor: Sendable, Equatable {
    public var key: String
    public var ascending: Bool

    public init(_ key: String, ascending: Bool = true) {
        self.key = key
        self.ascending = ascending
    }
}

/// What to fetch: live objects of one entity (and, as in Core Data, of its sub-entities),
/// filtered, sorted and limited.
public struct FetchRequest: Sendable, Equatable {
    public var entity: String
    public var predicate: FetchPredicate?
    public var sortDescriptors: [FetchSortDescriptor]
    public var limit: Int?
    /// Whether objects of the entity's sub-entities are fetched too (Core Data's
    /// `includesSubentities`, on by default).
    public var includesSubentities: Bool

    public init(entity: String, predicate: FetchPredicate? = nil, sortDescriptors: [FetchSortDescriptor] = [], limit: Int? = nil,
                includesSubentities: Bool = true) {
        self.entity = entity
        self.predicate = predicate
        self.sortDescriptors = sortDescriptors
        self.limit = limit
        self.includesSubentities = includesSubentities
    }
}

extension FetchRequest {
    /// The SQL and arguments selecting the matching rows' global IDs from `table` and the
    /// tables of its sub-entities (`others`, which hold every column of `table`: they inherit
    /// its properties). Objects are ordered by the sort descriptors, then by global ID so the
    /// order is always the same.
    func sql(table: EntityTable, subentityTables others: [EntityTable] = []) throws(ModelError) -> (String, [SQLiteValue]) {
        var conditionArguments: [SQLiteValue] = []
        var filter = "alive = 1"
        if let predicate {
            filter += " AND " + (try Self.condition(predicate, table: table, arguments: &conditionArguments))
        }
        var sortColumns: [String] = []
        for descriptor in sortDescriptors { sortColumns.append(try Self.column(descriptor.key, table: table)) }
        var order: [String] = []
        var sql: String
        var arguments: [SQLiteValue] = []
        if others.isEmpty {
            sql = "SELECT gid FROM \(table.quotedName) WHERE \(filter)"
            arguments = conditionArguments
            for (descriptor, column) in zip(sortDescriptors, sortColumns) { order.append("\(column) \(descriptor.ascending ? "ASC" : "DESC")") }
        } else {
            // One SELECT per table with the same columns (the first names them), sorted outside.
            let selected = (["gid"] + sortColumns.enumerated().map { "\($0.element) AS s\($0.offset)" }).joined(separator: ", ")
            let union = ([table] + others).map { "SELECT \(selected) FROM \($0.quotedName) WHERE \(filter)" }.joined(separator: " UNION ALL ")
            for _ in 0...others.count { arguments += conditionArguments }
            for (offset, descriptor) in sortDescriptors.enumerated() { order.append("s\(offset) \(descriptor.ascending ? "ASC" : "DESC")") }
            sql = "SELECT gid FROM (\(union))"
        }
        order.append("gid ASC")
        sql += " ORDER BY " + order.joined(separator: ", ")
        if let limit { sql += " LIMIT \(max(0, limit))" }
        return (sql, arguments)
    }

    private static func column(_ key: String, table: EntityTable) throws(ModelError) -> String {
        if let index = table.attributeColumn[key] ?? table.toOneColumn[key] { return SQLiteDatabase.quote(table.columns[index]) }
        throw .unknownProperty(entity: table.entity.name, property: key)
    }

    private static func condition(_ predicate: FetchPredicate, table: EntityTable, arguments: inout [SQLiteValue]) throws(ModelError) -> String {
        switch predicate {
        case let .and(parts):
            guard !parts.isEmpty else { return "1" }
            var clauses: [String] = []
            for part in parts { clauses.append(try condition(part, table: table, arguments: &arguments)) }
            return "(" + clauses.joined(separator: " AND ") + ")"
        case let .or(parts):
            guard !parts.isEmpty else { return "0" }
            var clauses: [String] = []
            for part in parts { clauses.append(try condition(part, table: table, arguments: &arguments)) }
            return "(" + clauses.joined(separator: " OR ") + ")"
        case let .not(part):
            return "NOT " + (try condition(part, table: table, arguments: &arguments))
        case let .comparison(key, op, value):
            let column = try column(key, table: table)
            guard let value else {
                switch op {
                case .equal: return "\(column) IS NULL"
                case .notEqual: return "\(column) IS NOT NULL"
                default: return "0"
                }
            }
            if table.toOneColumn[key] != nil {
                guard case let .string(target) = value else { throw .unknownProperty(entity: table.entity.name, property: key) }
                arguments.append(.text(target))
            } else {
                arguments.append(value.sqliteValue)
            }
            switch op {
            case .contains:
                arguments[arguments.count - 1] = .text(value.description)
                return "instr(\(column), ?) > 0"
            case .beginsWith:
                let prefix = value.description
                arguments[arguments.count - 1] = .text(prefix)
                return "substr(\(column), 1, \(prefix.unicodeScalars.count)) = ?"
            case .notEqual: return "\(column) IS NOT ?"
            default: return "\(column) \(op.rawValue) ?"
            }
        }
    }
}
