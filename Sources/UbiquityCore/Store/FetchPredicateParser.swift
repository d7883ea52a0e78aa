/// Parses the textual predicates of `ubiq fetch --where`:
/// `title == 'Groceries' AND (pinned == true OR body CONTAINS "milk")`.
///
/// Comparisons are `property op value` with `== != < <= > >= CONTAINS BEGINSWITH` (`=` means
/// `==`); `AND`/`&&`, `OR`/`||`, `NOT`/`!` and parentheses combine them; `AND` binds tighter
/// than `OR`. Values are quoted strings or bare words, read by the property's type; `nil`
/// (or `null`) is the absent value. To-one relationships compare global IDs.
extension FetchPredicate {
    public static func parse(_ text: String, entity: EntityDescription) throws(PredicateParseError) -> FetchPredicate {
        var parser = PredicateParser(tokens: try PredicateParser.tokenize(text), entity: entity)
        let predicate = try parser.parseOr()
        if let extra = parser.peek { throw PredicateParseError(message: "unexpected '\(extra.text)' after the end of the predicate") }
        return predicate
    }
}

/// A predicate that cannot be parsed, with what is wrong.
public struct PredicateParseError: Error, CustomStringConvertible, Sendable {
    public let message: String
    public var description: String { "invalid predicate: \(message)" }
}

private struct PredicateParser {
    struct Token {
        enum Kind { case word, quoted, symbol }
        let kind: Kind
        let text: String
    }

    let tokens: [Token]
    let entity: EntityDescription
    var position = 0
    /// How deep the current `NOT`s and parentheses nest: the parser recurses per level, so a
    /// bound keeps hostile input (thousands of parentheses) from overflowing the stack.
    var depth = 0
    static let maximumDepth = 100

    init(tokens: [Token], entity: EntityDescription) {
        self.tokens = tokens
        self.entity = entity
    }

    var peek: Token? { position < tokens.count ? tokens[position] : nil }

    mutating func next() -> Token? {
        defer { position += 1 }
        return peek
    }

    func isKeyword(_ token: Token?, _ words: String...) -> Bool {
        guard let token, token.kind != .quoted else { return false }
        return words.contains(token.text.uppercased())
    }

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
        let nests = isKeyword(peek, "NOT", "!") || (peek?.kind == .symbol && peek?.text == "(")
        if nests {
            depth += 1
            guard depth <= Self.maximumDepth else {
                throw PredicateParseError(message: "NOTs and parentheses nest deeper than \(Self.maximumDepth) levels")
            }
        }
        defer { if nests { depth -= 1 } }
        if isKeyword(peek, "NOT", "!") {
            position += 1
            return .not(try parseUnary())
        }
        if peek?.kind == .symbol, peek?.text == "(" {
            position += 1
            let inner = try parseOr()
            guard let close = next(), close.kind == .symbol, close.text == ")" else { throw PredicateParseError(message: "missing ')'") }
            return inner
        }
        return try parseComparison()
    }

    mutating func parseComparison() throws(PredicateParseError) -> FetchPredicate {
        guard let name = next(), name.kind == .word else { throw PredicateParseError(message: "expected a property name") }
        guard let opToken = next() else { throw PredicateParseError(message: "expected an operator after '\(name.text)'") }
        let opText = opToken.text.uppercased() == "=" ? "==" : opToken.text.uppercased()
        guard opToken.kind != .quoted, let op = ComparisonOperator(rawValue: opText) else {
            throw PredicateParseError(message: "unknown operator '\(opToken.text)' (use == != < <= > >= CONTAINS BEGINSWITH)")
        }
        guard let valueToken = next() else { throw PredicateParseError(message: "expected a value after '\(name.text) \(opToken.text)'") }
        if valueToken.kind == .word, ["NIL", "NULL"].contains(valueToken.text.uppercased()) {
            return .comparison(name.text, op, nil)
        }
        if let attribute = entity.attribute(name.text) {
            if op == .contains || op == .beginsWith, attribute.type == .decimal {
                // A decimal column holds its sort key, not its text.
                throw PredicateParseError(message: "\(opToken.text.uppercased()) compares text; \(entity.name).\(name.text) is a decimal")
            }
            let type: AttributeType = (op == .contains || op == .beginsWith) ? .string : attribute.type
            guard let value = type.parse(valueToken.text) else {
                throw PredicateParseError(message: "'\(valueToken.text)' is not a \(type.rawValue) (for \(entity.name).\(name.text))")
            }
            return .comparison(name.text, op, value)
        }
        if let relationship = entity.relationship(name.text), !relationship.isToMany {
            return .comparison(name.text, op, .string(valueToken.text))
        }
        throw PredicateParseError(message: "entity \(entity.name) has no attribute or to-one relationship '\(name.text)'")
    }

    static func tokenize(_ text: String) throws(PredicateParseError) -> [Token] {
        var tokens: [Token] = []
        let characters = Array(text)
        var index = 0
        while index < characters.count {
            let character = characters[index]
            if character.isWhitespace { index += 1; continue }
            if character == "'" || character == "\"" {
                var value = ""
                index += 1
                while index < characters.count, characters[index] != character {
                    if characters[index] == "\\", index + 1 < characters.count { index += 1 }
                    value.append(characters[index])
                    index += 1
                }
                guard index < characters.count else { throw PredicateParseError(message: "unterminated string") }
                index += 1
                tokens.append(Token(kind: .quoted, text: value))
                continue
            }
            if "()".contains(character) {
                tokens.append(Token(kind: .symbol, text: String(character)))
                index += 1
                continue
            }
            if "=!<>&|".contains(character) {
                var symbol = String(character)
                if index + 1 < characters.count, "=&|".contains(characters[index + 1]) {
                    symbol.append(characters[index + 1])
                }
                index += symbol.count
                tokens.append(Token(kind: symbol == "!" ? .word : .symbol, text: symbol))
                continue
            }
            var word = ""
            while index < characters.count, !characters[index].isWhitespace, !"()=!<>&|'\"".contains(characters[index]) {
                word.append(characters[index])
                index += 1
            }
            tokens.append(Token(kind: .word, text: word))
        }
        return tokens
    }
}
