/// Parses the textual predicates of `ubiq fetch --where`, in NSPredicate's syntax:
/// `title == 'Groceries' AND (pinned == true OR body CONTAINS[cd] "milk")`.
///
/// - Comparisons are `keypath op value` with `== != < <= > >= CONTAINS BEGINSWITH ENDSWITH
///   LIKE MATCHES IN` (`=` means `==`); `[c]`, `[d]` or `[cd]` after the operator compare
///   case- and diacritic-insensitively. `LIKE` takes `*` and `?`; `MATCHES` a regular expression
///   that must match the whole string; `IN` a list `{'a', 'b'}` (or in parentheses).
/// - A key path goes through to-one relationships (`folder.name`); through a to-many it needs
///   `ANY`, `ALL` or `NONE` in front (`ANY tags.name == 'x'`), or ends in `@count`
///   (`notes.@count > 2`).
/// - `AND`/`&&`, `OR`/`||`, `NOT`/`!` and parentheses combine comparisons; `AND` binds tighter
///   than `OR`. Values are quoted strings or bare words, read by the property's type; `nil` (or
///   `null`) is the absent value. A to-one relationship itself compares global IDs.
/// - A value may be a substitution variable, `$NAME` (Core Data's fetch request templates),
///   replaced by the value given for it: text is read by the compared property's type.
///
/// An error names what is wrong and the character where it is (counted from 1).
extension FetchPredicate {
    /// Parses `text` for objects of `entity`. Key paths through relationships need `model`.
    /// `substitutionVariables` gives the value of each `$NAME` (keyed without the `$`).
    public static func parse(_ text: String, entity: EntityDescription, model: ObjectModel? = nil,
                             substitutionVariables: [String: SubstitutionValue] = [:]) throws(PredicateParseError) -> FetchPredicate {
        var parser = PredicateParser(tokens: try PredicateParser.tokenize(text), entity: entity, model: model, end: text.count + 1)
        parser.variables = substitutionVariables
        let predicate = try parser.parseOr()
        if let extra = parser.peek { throw PredicateParseError(message: "unexpected '\(extra.text)' after the end of the predicate", at: extra.offset) }
        return predicate
    }
}

extension FetchPredicate {
    /// The substitution variables `text` names (`$NAME` outside quotes; of `$NAME.key`, `NAME`), without the `$`, each
    /// once, in order; none when `text` does not tokenize (parsing then says why).
    public static func variables(in text: String) -> [String] {
        guard let tokens = try? PredicateParser.tokenize(text) else { return [] }
        var names: [String] = []
        for token in tokens where token.kind == .word && token.text.hasPrefix("$") && token.text.count > 1 {
            let name = String(token.text.dropFirst().prefix { $0 != "." })
            if !names.contains(name) { names.append(name) }
        }
        return names
    }
}

/// The value of a substitution variable: a value as it is, or text read by the type of the
/// property it is compared with (as a command line gives it).
public enum SubstitutionValue: Sendable, Equatable {
    /// This value; `nil` is the absent value.
    case value(AttributeValue?)
    /// Text, read as the compared attribute's type (a to-one relationship's: a global ID).
    case text(String)
}

/// A predicate that cannot be parsed, with what is wrong and where.
public struct PredicateParseError: Error, CustomStringConvertible, Sendable {
    public let message: String
    /// The character (from 1) where the problem is.
    public let position: Int?

    public init(message: String, at position: Int? = nil) {
        self.message = message
        self.position = position
    }

    public var description: String { "invalid predicate: \(message)" + (position.map { " (at character \($0))" } ?? "") }
}

private struct PredicateParser {
    struct Token {
        enum Kind { case word, quoted, symbol }
        let kind: Kind
        let text: String
        /// Where the token starts, from 1.
        let offset: Int
    }

    let tokens: [Token]
    let entity: EntityDescription
    let model: ObjectModel?
    var variables: [String: SubstitutionValue] = [:]
    /// The position just past the text, for errors at its end.
    let end: Int
    var position = 0
    /// How deep the current `NOT`s and parentheses nest: the parser recurses per level, so a
    /// bound keeps hostile input (thousands of parentheses) from overflowing the stack.
    var depth = 0
    static let maximumDepth = 100
    static let operators = "== != < <= > >= CONTAINS BEGINSWITH ENDSWITH LIKE MATCHES IN"

    init(tokens: [Token], entity: EntityDescription, model: ObjectModel?, end: Int) {
        self.tokens = tokens
        self.entity = entity
        self.model = model
        self.end = end
    }

    var peek: Token? { position < tokens.count ? tokens[position] : nil }
    var here: Int { peek?.offset ?? end }

    mutating func next() -> Token? {
        defer { position += 1 }
        return peek
    }

    func isKeyword(_ token: Token?, _ words: String...) -> Bool {
        guard let token, token.kind != .quoted else { return false }
        return words.contains(token.text.uppercased())
    }

    func isSymbol(_ token: Token?, _ symbol: String) -> Bool { token?.kind == .symbol && token?.text == symbol }

    mutating func parseOr() throws(PredicateParseError) -> FetchPredicate {
        var parts = [try parseAnd()]
        while isKeyword(peek, "OR", "||") {
            position += 1
            parts.append(try parseAnd())
        }
        return parts.count == 1 ? parts[0] : .or(parts)
    }

    mutating func parseAnd() throws(PredicateParseError) -> FetchPredicate {
        var parts = [try parseUnary()]
        while isKeyword(peek, "AND", "&&") {
            position += 1
            parts.append(try parseUnary())
        }
        return parts.count == 1 ? parts[0] : .and(parts)
    }

    mutating func parseUnary() throws(PredicateParseError) -> FetchPredicate {
        let nests = isKeyword(peek, "NOT", "!") || isSymbol(peek, "(")
        if nests {
            depth += 1
            guard depth <= Self.maximumDepth else {
                throw PredicateParseError(message: "NOTs and parentheses nest deeper than \(Self.maximumDepth) levels", at: here)
            }
        }
        defer { if nests { depth -= 1 } }
        if isKeyword(peek, "NOT", "!") {
            position += 1
            return .not(try parseUnary())
        }
        if isSymbol(peek, "(") {
            let open = here
            position += 1
            let inner = try parseOr()
            guard isSymbol(peek, ")") else { throw PredicateParseError(message: "missing ')' for the '(' at character \(open)", at: here) }
            position += 1
            return inner
        }
        return try parseComparison()
    }

    /// What a key path ends in, and so how its values are read.
    enum Leaf {
        case attribute(AttributeDescription)
        case toOne(RelationshipDescription)
        case count
    }

    mutating func parseComparison() throws(PredicateParseError) -> FetchPredicate {
        var quantifier: KeyPathQuantifier?
        // `ANY tags.name …`: a quantifier is a word followed by another word (a property named
        // `any` is still a property when an operator follows it).
        if let word = peek, word.kind == .word, position + 1 < tokens.count, tokens[position + 1].kind == .word,
           ComparisonOperator(rawValue: tokens[position + 1].text.uppercased().split(separator: "[").first.map(String.init) ?? "") == nil {
            if let found = KeyPathQuantifier(rawValue: word.text.uppercased()) {
                quantifier = found
                position += 1
            } else if word.text.uppercased() == "SOME" {
                quantifier = .any
                position += 1
            }
        }
        guard let name = next(), name.kind == .word, !isKeyword(name, "AND", "OR", "&&", "||") else {
            throw PredicateParseError(message: "expected a property name", at: position - 1 < tokens.count ? tokens[position - 1].offset : end)
        }
        let path = name.text.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        let (leaf, throughToMany) = try resolve(path, at: name.offset)
        if throughToMany, quantifier == nil {
            throw PredicateParseError(message: "'\(name.text)' goes through a to-many relationship: put ANY, ALL or NONE in front, or count it with @count", at: name.offset)
        }

        guard let opToken = next() else { throw PredicateParseError(message: "expected an operator after '\(name.text)'", at: end) }
        var opText = opToken.text.uppercased()
        var options: ComparisonOptions = []
        // `CONTAINS[cd]` is one word; `==[c]` a symbol and a word.
        if let bracket = opText.firstIndex(of: "["), opToken.kind == .word {
            options = try modifiers(String(opText[bracket...]), at: opToken.offset)
            opText = String(opText[..<bracket])
        } else if let modifier = peek, modifier.kind == .word, modifier.text.hasPrefix("[") {
            options = try modifiers(modifier.text.uppercased(), at: modifier.offset)
            position += 1
        }
        if opText == "=" { opText = "==" }
        guard opToken.kind != .quoted, let op = ComparisonOperator(rawValue: opText) else {
            throw PredicateParseError(message: "unknown operator '\(opToken.text)' (use \(Self.operators))", at: opToken.offset)
        }

        let values: [AttributeValue?]
        if op == .in {
            values = try parseList(leaf: leaf, op: op, path: name.text)
        } else {
            guard let valueToken = next() else { throw PredicateParseError(message: "expected a value after '\(name.text) \(opToken.text)'", at: end) }
            values = [try value(valueToken, leaf: leaf, op: op, path: name.text)]
        }
        let isTextOperator = [.contains, .beginsWith, .endsWith, .like, .matches].contains(op)
        if isTextOperator || !options.isEmpty, case let .attribute(attribute) = leaf, attribute.type == .decimal {
            // A decimal column holds its sort key, not its text.
            throw PredicateParseError(message: "\(opToken.text.uppercased()) compares text; \(name.text) is a decimal", at: opToken.offset)
        }
        if op == .matches, case let .string(pattern)?? = values.first, WholeStringPattern(pattern) == nil {
            throw PredicateParseError(message: "'\(pattern)' is not a valid regular expression", at: opToken.offset)
        }
        // The plain forms stay SQL (fast, indexed); everything else is evaluated in Swift.
        if path.count == 1, quantifier == nil, options.isEmpty, op != .in, !isTextOperator || op == .contains || op == .beginsWith,
           case .attribute = leaf {
            return .comparison(path[0], op, values[0])
        }
        if path.count == 1, quantifier == nil, options.isEmpty, case .toOne = leaf, [.equal, .notEqual].contains(op) {
            return .comparison(path[0], op, values[0])
        }
        return .keyPath(KeyPathComparison(path: path, quantifier: quantifier, op: op, values: values, options: options))
    }

    func modifiers(_ text: String, at offset: Int) throws(PredicateParseError) -> ComparisonOptions {
        guard text.hasPrefix("["), text.hasSuffix("]"), text.count >= 3 else {
            throw PredicateParseError(message: "a modifier is [c], [d] or [cd], not '\(text)'", at: offset)
        }
        var options: ComparisonOptions = []
        for letter in text.dropFirst().dropLast() {
            switch letter {
            case "C": options.insert(.caseInsensitive)
            case "D": options.insert(.diacriticInsensitive)
            default: throw PredicateParseError(message: "a modifier is [c], [d] or [cd], not '\(text.lowercased())'", at: offset)
            }
        }
        return options
    }

    /// Follows `path` from the fetched entity; whether it crossed a to-many (not counted).
    func resolve(_ path: [String], at offset: Int) throws(PredicateParseError) -> (Leaf, Bool) {
        var current = entity
        var throughToMany = false
        for (index, component) in path.enumerated() {
            let isLast = index == path.count - 1
            if component == "@count" {
                throw PredicateParseError(message: "@count follows a to-many relationship ('notes.@count')", at: offset)
            }
            if let attribute = current.attribute(component) {
                guard isLast else { throw PredicateParseError(message: "\(current.name).\(component) is an attribute; a key path cannot go on after it", at: offset) }
                return (.attribute(attribute), throughToMany)
            }
            guard let relationship = current.relationship(component) else {
                let kind = path.count == 1 ? "attribute or to-one relationship" : "property"
                throw PredicateParseError(message: "entity \(current.name) has no \(kind) '\(component)'", at: offset)
            }
            if isLast {
                guard !relationship.isToMany else {
                    throw PredicateParseError(message: "\(current.name).\(component) is a to-many relationship: compare its @count or a key path through it", at: offset)
                }
                return (.toOne(relationship), throughToMany)
            }
            if relationship.isToMany {
                if path[index + 1] == "@count" {
                    guard index + 2 == path.count else { throw PredicateParseError(message: "@count ends a key path", at: offset) }
                    return (.count, throughToMany)
                }
                guard !throughToMany else { throw PredicateParseError(message: "a key path goes through one to-many relationship at most", at: offset) }
                throughToMany = true
            }
            guard let model else { throw PredicateParseError(message: "the key path '\(path.joined(separator: "."))' needs the model to follow relationships", at: offset) }
            guard let next = model.entity(relationship.destination) else {
                throw PredicateParseError(message: "\(current.name).\(component) points to an unknown entity", at: offset)
            }
            current = next
        }
        throw PredicateParseError(message: "expected a property name", at: offset)
    }

    mutating func parseList(leaf: Leaf, op: ComparisonOperator, path: String) throws(PredicateParseError) -> [AttributeValue?] {
        guard let open = next(), open.kind == .symbol, open.text == "{" || open.text == "(" else {
            throw PredicateParseError(message: "IN takes a list: {'a', 'b'}", at: position - 1 < tokens.count ? tokens[position - 1].offset : end)
        }
        let close = open.text == "{" ? "}" : ")"
        var values: [AttributeValue?] = []
        while true {
            guard let token = next() else { throw PredicateParseError(message: "missing '\(close)' at the end of the list", at: end) }
            if token.kind == .symbol, token.text == close, values.isEmpty { break }
            values.append(try value(token, leaf: leaf, op: op, path: path))
            guard let separator = next() else { throw PredicateParseError(message: "missing '\(close)' at the end of the list", at: end) }
            if separator.kind == .symbol, separator.text == close { break }
            guard separator.kind == .symbol, separator.text == "," else {
                throw PredicateParseError(message: "expected ',' or '\(close)' in the list, not '\(separator.text)'", at: separator.offset)
            }
        }
        return values
    }

    func value(_ token: Token, leaf: Leaf, op: ComparisonOperator, path: String) throws(PredicateParseError) -> AttributeValue? {
        if token.kind == .symbol { throw PredicateParseError(message: "expected a value, not '\(token.text)'", at: token.offset) }
        if token.kind == .word, ["NIL", "NULL"].contains(token.text.uppercased()) { return nil }
        var text = token.text
        if token.kind == .word, text.hasPrefix("$") {
            if text.contains(".") {
                throw PredicateParseError(message: "\(text): a key path from a substitution variable is not supported (compare a relationship with the variable itself)", at: token.offset)
            }
            switch variables[String(text.dropFirst())] {
            case nil: throw PredicateParseError(message: "no value for the variable \(text)", at: token.offset)
            case let .value(value)?: return value
            case let .text(given)?: text = given
            }
        }
        let type: AttributeType
        switch leaf {
        case let .attribute(attribute):
            type = [.contains, .beginsWith, .endsWith, .like, .matches].contains(op) ? .string : attribute.type
        case .toOne: return .string(text)
        case .count: type = .integer
        }
        guard let value = type.parse(text) else {
            throw PredicateParseError(message: "'\(text)' is not a \(type.rawValue) (for \(entity.name).\(path))", at: token.offset)
        }
        return value
    }

    static func tokenize(_ text: String) throws(PredicateParseError) -> [Token] {
        var tokens: [Token] = []
        let characters = Array(text)
        var index = 0
        while index < characters.count {
            let character = characters[index]
            let start = index + 1
            if character.isWhitespace { index += 1; continue }
            if character == "'" || character == "\"" {
                var value = ""
                index += 1
                while index < characters.count, characters[index] != character {
                    if characters[index] == "\\", index + 1 < characters.count { index += 1 }
                    value.append(characters[index])
                    index += 1
                }
                guard index < characters.count else { throw PredicateParseError(message: "unterminated string", at: start) }
                index += 1
                tokens.append(Token(kind: .quoted, text: value, offset: start))
                continue
            }
            if "(){},".contains(character) {
                tokens.append(Token(kind: .symbol, text: String(character), offset: start))
                index += 1
                continue
            }
            if "=!<>&|".contains(character) {
                var symbol = String(character)
                if index + 1 < characters.count, "=&|".contains(characters[index + 1]) {
                    symbol.append(characters[index + 1])
                }
                index += symbol.count
                tokens.append(Token(kind: symbol == "!" ? .word : .symbol, text: symbol, offset: start))
                continue
            }
            var word = ""
            while index < characters.count, !characters[index].isWhitespace, !"(){},=!<>&|'\"".contains(characters[index]) {
                word.append(characters[index])
                index += 1
            }
            tokens.append(Token(kind: .word, text: word, offset: start))
        }
        return tokens
    }
}
