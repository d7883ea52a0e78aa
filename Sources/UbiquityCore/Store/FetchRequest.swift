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
    /// Suffix match on strings.
    case endsWith = "ENDSWITH"
    /// Wildcard match of the whole string: `*` any run of characters, `?` one character.
    case like = "LIKE"
    /// An ICU regular expression matching the whole string (as NSPredicate's MATCHES).
    case matches = "MATCHES"
    /// Equal to one value of a list.
    case `in` = "IN"
}

/// NSPredicate's comparison modifiers: `[c]` case-insensitive, `[d]` diacritic-insensitive.
public struct ComparisonOptions: OptionSet, Sendable, Hashable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
    public static let caseInsensitive = ComparisonOptions(rawValue: 1)
    public static let diacriticInsensitive = ComparisonOptions(rawValue: 2)
}

/// How a key path through a to-many relationship is compared: some member, every member, no member.
public enum KeyPathQuantifier: String, Sendable {
    case any = "ANY", all = "ALL", none = "NONE"
}

/// A comparison on a key path, as NSPredicate writes them: `folder.name ==[c] "trip"`,
/// `ANY tags.name IN {"a", "b"}`, `notes.@count > 2`, `title LIKE "G*"`. Evaluated in Swift
/// (`FetchEvaluation.swift`) over the saved objects.
public struct KeyPathComparison: Sendable, Equatable {
    /// Property names from the fetched entity; through to-one relationships, at most one
    /// to-many (with a quantifier), and `@count` after a to-many.
    public var path: [String]
    public var quantifier: KeyPathQuantifier?
    public var op: ComparisonOperator
    /// One value, or `IN`'s list; `nil` is the absent value.
    public var values: [AttributeValue?]
    public var options: ComparisonOptions

    public init(path: [String], quantifier: KeyPathQuantifier? = nil, op: ComparisonOperator, values: [AttributeValue?],
                options: ComparisonOptions = []) {
        self.path = path
        self.quantifier = quantifier
        self.op = op
        self.values = values
        self.options = options
    }
}

/// A condition on an entity's attributes and to-one relationships, combined with and/or/not.
public indirect enum FetchPredicate: Sendable, Equatable {
    /// `property op value`; a to-one relationship compares its target's global ID (`.string`);
    /// `nil` matches absent values with `==` and present ones with `!=`.
    case comparison(String, ComparisonOperator, AttributeValue?)
    case and([FetchPredicate])
    case or([FetchPredicate])
    case not(FetchPredicate)
    /// A comparison through key paths, with modifiers or an operator SQL is not asked for.
    case keyPath(KeyPathComparison)

    /// Whether the store evaluates this predicate in Swift rather than in SQL.
    var needsEvaluation: Bool {
        switch self {
        case let .comparison(_, op, _): return ![.equal, .notEqual, .less, .lessOrEqual, .greater, .greaterOrEqual, .contains, .beginsWith].contains(op)
        case let .and(parts), let .or(parts): return parts.contains { $0.needsEvaluation }
        case let .not(part): return part.needsEvaluation
        case .keyPath: return true
        }
    }
}

/// An ordering of fetched objects by one attribute.
public struct FetchSortDescriptor: Sendable, Equatable {
    public var key: String
    public var ascending: Bool
    /// Strings compare with case folded (Core Data's `caseInsensitiveCompare:`).
    public var caseInsensitive: Bool

    public init(_ key: String, ascending: Bool = true, caseInsensitive: Bool = false) {
        self.key = key
        self.ascending = ascending
        self.caseInsensitive = caseInsensitive
    }
}

/// What to fetch: live objects of one entity (and, as in Core Data, of its sub-entities),
/// filtered, sorted and limited.
public struct FetchRequest: Sendable, Equatable {
    public var entity: String
    public var predicate: FetchPredicate?
    public var sortDescriptors: [FetchSortDescriptor]
    public var limit: Int?
    /// How many matching objects to skip before the first returned (Core Data's `fetchOffset`).
    public var offset: Int
    /// Whether objects of the entity's sub-entities are fetched too (Core Data's
    /// `includesSubentities`, on by default).
    public var includesSubentities: Bool

    public init(entity: String, predicate: FetchPredicate? = nil, sortDescriptors: [FetchSortDescriptor] = [], limit: Int? = nil,
                includesSubentities: Bool = true, offset: Int = 0) {
        self.entity = entity
        self.predicate = predicate
        self.sortDescriptors = sortDescriptors
        self.limit = limit
        self.includesSubentities = includesSubentities
        self.offset = offset
    }

    /// Whether the store filters and sorts in Swift (key paths, modifiers, the newer operators,
    /// case-insensitive sorts) instead of in one SQL statement.
    var needsEvaluation: Bool {
        (predicate?.needsEvaluation ?? false) || sortDescriptors.contains { $0.caseInsensitive }
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
        if let limit { sql += " LIMIT \(max(0, limit))" } else if offset > 0 { sql += " LIMIT -1" }
        if offset > 0 { sql += " OFFSET \(offset)" }
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
        case let .keyPath(comparison):
            // Never reached: such a request is evaluated in Swift (`needsEvaluation`).
            throw .unknownProperty(entity: table.entity.name, property: comparison.path.joined(separator: "."))
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
