import Foundation

// Fetches SQL is not asked to do: key paths through relationships, ANY/ALL/NONE and @count,
// [c]/[d] modifiers, ENDSWITH, LIKE, MATCHES, IN, case-insensitive sorts. The objects of the
// entity are read and the predicate and sort run here, with NSPredicate's meaning.
extension PersistentStore {
    /// The live objects of `request`, filtered, sorted, offset and limited in Swift. The caller holds the lock.
    func evaluatedFetch(_ request: FetchRequest) throws -> [ObjectSnapshot] {
        var all = FetchRequest(entity: request.entity, includesSubentities: request.includesSubentities)
        all.predicate = nil
        let (sql, arguments) = try sql(of: all)
        let ids = try database.statement(sql).bind(arguments).rows { $0.string(0) ?? "" }
        var matching: [ObjectSnapshot] = []
        for text in ids {
            let id = try GlobalID(text)
            let table = try table(id.entity)
            guard let row = try loadRow(table, id) else { continue }
            let snapshot = try snapshot(row: row, table: table, id: id)
            if let predicate = request.predicate, try !evaluate(predicate, on: snapshot) { continue }
            matching.append(snapshot)
        }
        if !request.sortDescriptors.isEmpty {
            let keys = try matching.map { snapshot in try request.sortDescriptors.map { try sortValue($0, of: snapshot) } }
            let order = matching.indices.sorted { a, b in
                for (index, descriptor) in request.sortDescriptors.enumerated() {
                    let result = Self.compareStored(keys[a][index], keys[b][index])
                    if result != 0 { return descriptor.ascending ? result < 0 : result > 0 }
                }
                return matching[a].id < matching[b].id
            }
            matching = order.map { matching[$0] }
        }
        let start = min(max(0, request.offset), matching.count)
        let end = request.limit.map { min(matching.count, start + max(0, $0)) } ?? matching.count
        return Array(matching[start..<end])
    }

    private func sortValue(_ descriptor: FetchSortDescriptor, of snapshot: ObjectSnapshot) throws -> SQLiteValue {
        let entity = try model.entity(named: snapshot.id.entity)
        if entity.attribute(descriptor.key) != nil {
            guard let value = snapshot.values[descriptor.key] ?? nil else { return .null }
            if descriptor.caseInsensitive, case let .string(text) = value { return .text(Self.fold(text, [.caseInsensitive])) }
            return value.sqliteValue
        }
        if entity.relationship(descriptor.key).map({ !$0.isToMany }) == true {
            return (snapshot.toOne[descriptor.key] ?? nil).map { .text($0.description) } ?? .null
        }
        throw ModelError.unknownProperty(entity: entity.name, property: descriptor.key)
    }

    /// SQLite's order of stored values: NULL, numbers, text (by bytes), blobs (by bytes).
    static func compareStored(_ a: SQLiteValue, _ b: SQLiteValue) -> Int {
        func rank(_ value: SQLiteValue) -> Int {
            switch value { case .null: 0; case .integer, .real: 1; case .text: 2; case .blob: 3 }
        }
        func number(_ value: SQLiteValue) -> Double {
            switch value { case let .integer(i): Double(i); case let .real(d): d; default: 0 }
        }
        func bytes(_ x: [UInt8], _ y: [UInt8]) -> Int { x == y ? 0 : (x.lexicographicallyPrecedes(y) ? -1 : 1) }
        if rank(a) != rank(b) { return rank(a) < rank(b) ? -1 : 1 }
        switch (a, b) {
        case let (.integer(x), .integer(y)): return x == y ? 0 : (x < y ? -1 : 1)
        case (.integer, _), (.real, _): let (x, y) = (number(a), number(b)); return x == y ? 0 : (x < y ? -1 : 1)
        case let (.text(x), .text(y)): return bytes(Array(x.utf8), Array(y.utf8))
        case let (.blob(x), .blob(y)): return bytes(x, y)
        default: return 0
        }
    }

    // MARK: Predicates

    func evaluate(_ predicate: FetchPredicate, on object: ObjectSnapshot) throws -> Bool {
        switch predicate {
        case let .and(parts):
            for part in parts where try !evaluate(part, on: object) { return false }
            return true
        case let .or(parts):
            for part in parts where try evaluate(part, on: object) { return true }
            return false
        case let .not(part):
            return try !evaluate(part, on: object)
        case let .comparison(key, op, value):
            return try evaluate(.keyPath(KeyPathComparison(path: [key], op: op, values: [value])), on: object)
        case let .keyPath(comparison):
            let (values, quantified) = try resolve(comparison.path, from: object)
            let results = values.map { matches($0, comparison) }
            guard quantified else { return results.first ?? false }
            switch comparison.quantifier ?? .any {
            case .any: return results.contains(true)
            case .all: return !results.contains(false)
            case .none: return !results.contains(true)
            }
        }
    }

    /// The values at the end of `path` from `object`, and whether they come through a to-many
    /// (one per member). A missing to-one on the way gives one absent value.
    private func resolve(_ path: [String], from object: ObjectSnapshot) throws -> ([AttributeValue?], Bool) {
        var objects: [ObjectSnapshot?] = [object]
        var quantified = false
        var index = 0
        while index < path.count {
            let name = path[index], isLast = index == path.count - 1
            var next: [ObjectSnapshot?] = []
            var values: [AttributeValue?] = []
            for current in objects {
                guard let current else {
                    if isLast || path[index + 1] == "@count" { values.append(nil) } else { next.append(nil) }
                    continue
                }
                let entity = try model.entity(named: current.id.entity)
                if entity.attribute(name) != nil {
                    values.append(current.values[name] ?? nil)
                } else if let relationship = entity.relationship(name), !relationship.isToMany {
                    let target = current.toOne[name] ?? nil
                    if isLast { values.append(target.map { .string($0.description) }) } else { next.append(try target.flatMap { try snapshot(of: $0) }) }
                } else if entity.relationship(name) != nil {
                    let members = try targets(of: name, of: current.id)
                    if !isLast, path[index + 1] == "@count" {
                        values.append(.integer(Int64(members.count)))
                    } else {
                        quantified = true
                        for member in members { next.append(try snapshot(of: member)) }
                    }
                } else {
                    throw ModelError.unknownProperty(entity: entity.name, property: name)
                }
            }
            if !values.isEmpty || (index + 1 < path.count && path[index + 1] == "@count") || isLast { return (values, quantified) }
            objects = next
            index += 1
        }
        return ([], quantified)
    }

    private func matches(_ value: AttributeValue?, _ comparison: KeyPathComparison) -> Bool {
        let options = comparison.options
        switch comparison.op {
        case .in: return comparison.values.contains { equal(value, $0, options) }
        case .equal: return equal(value, comparison.values.first ?? nil, options)
        case .notEqual: return !equal(value, comparison.values.first ?? nil, options)
        case .less, .lessOrEqual, .greater, .greaterOrEqual:
            guard let value, let other = comparison.values.first ?? nil else { return false }
            let result: Int
            if case let .string(x) = value, case let .string(y) = other {
                result = Self.compareStored(.text(Self.fold(x, options)), .text(Self.fold(y, options)))
            } else {
                guard value.type == other.type || (value.isNumber && other.isNumber) else { return false }
                if case let .double(x) = value, x.isNaN { return false }
                result = Self.compareStored(value.sqliteValue, other.sqliteValue)
            }
            switch comparison.op {
            case .less: return result < 0
            case .lessOrEqual: return result <= 0
            case .greater: return result > 0
            default: return result >= 0
            }
        case .contains, .beginsWith, .endsWith, .like, .matches:
            guard let value, case let .string(pattern)?? = comparison.values.first else { return false }
            let text: String
            if case let .string(string) = value { text = string } else { text = value.description }
            switch comparison.op {
            case .contains: return pattern.isEmpty || Self.fold(text, options).contains(Self.fold(pattern, options))
            case .beginsWith: return Self.fold(text, options).hasPrefix(Self.fold(pattern, options))
            case .endsWith: return Self.fold(text, options).hasSuffix(Self.fold(pattern, options))
            case .like: return Self.wholeMatch(Self.fold(text, options), Self.likeExpression(Self.fold(pattern, options)), caseInsensitive: false)
            default:
                // MATCHES folds diacritics of both sides; case through the expression's own option.
                let folding = options.subtracting(.caseInsensitive)
                return Self.wholeMatch(Self.fold(text, folding), Self.fold(pattern, folding), caseInsensitive: options.contains(.caseInsensitive))
            }
        }
    }

    private func equal(_ a: AttributeValue?, _ b: AttributeValue?, _ options: ComparisonOptions) -> Bool {
        guard let a, let b else { return a == nil && b == nil }
        if case let .string(x) = a, case let .string(y) = b { return Self.fold(x, options) == Self.fold(y, options) }
        if a.isNumber, b.isNumber, a.type != b.type { return Self.compareStored(a.sqliteValue, b.sqliteValue) == 0 }
        return a == b
    }

    static func fold(_ text: String, _ options: ComparisonOptions) -> String {
        var folding: String.CompareOptions = []
        if options.contains(.caseInsensitive) { folding.insert(.caseInsensitive) }
        if options.contains(.diacriticInsensitive) { folding.insert(.diacriticInsensitive) }
        return folding.isEmpty ? text : text.folding(options: folding, locale: nil)
    }

    /// `LIKE`'s pattern as a regular expression: `*` any run, `?` one character, the rest literal.
    static func likeExpression(_ pattern: String) -> String {
        var expression = ""
        for character in pattern {
            switch character {
            case "*": expression += ".*"
            case "?": expression += "."
            default: expression += NSRegularExpression.escapedPattern(for: String(character))
            }
        }
        return expression
    }

    static func wholeMatch(_ text: String, _ pattern: String, caseInsensitive: Bool) -> Bool {
        var options: NSRegularExpression.Options = [.dotMatchesLineSeparators]
        if caseInsensitive { options.insert(.caseInsensitive) }
        guard let expression = try? NSRegularExpression(pattern: "\\A(?:" + pattern + ")\\z", options: options) else { return false }
        return expression.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil
    }
}

private extension AttributeValue {
    var isNumber: Bool {
        switch self { case .integer, .double, .float: true; default: false }
    }
}
