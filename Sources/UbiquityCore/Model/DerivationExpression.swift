/// A derived attribute's expression (`AttributeDescription.derivation`), parsed: the forms
/// Core Data's SQLite store computes (`NSDerivedAttributeDescription`).
///
/// A key path names an attribute of the object or, through to-one relationships, of a related
/// one (`folder.name`). A to-many relationship may only end in `@count` (`notes.@count`) or be
/// aggregated with a collection operator before the attribute (`notes.@sum.size`; `@avg`,
/// `@min`, `@max` alike, and the operator written last, `notes.size.@sum`, reads the same).
/// `now()` and the string functions `lowercase:(title)`, `uppercase:(title)`, `canonical:(title)`
/// complete the list; anything else is refused, as Core Data refuses it.
public enum DerivationExpression: Equatable, Sendable {
    /// To-one relationships, then an attribute.
    case keyPath([String])
    /// To-one relationships, then the to-many relationship whose objects are counted.
    case count([String])
    /// To-one relationships, then a to-many relationship, and the attribute of its objects
    /// that is aggregated.
    case aggregate(Aggregate, [String], attribute: String)
    /// The time of the change.
    case now
    /// A string function of a key path to a string attribute.
    case function(StringFunction, [String])

    /// A collection operator over a to-many relationship's attribute.
    public enum Aggregate: String, Sendable, CaseIterable {
        case sum, avg, min, max
    }

    /// A string function Core Data offers for derivations.
    public enum StringFunction: String, Sendable, CaseIterable {
        /// Lowercased.
        case lowercase
        /// Uppercased.
        case uppercase
        /// Case- and diacritic-insensitive: compatibility decomposition (NFKD), combining marks
        /// dropped, then lowercased.
        case canonical
    }

    /// Parses `text`, refusing what is not one of the forms above.
    public init(parsing text: String) throws(DerivationExpressionError) {
        let text = text.trimmingSpaces
        guard !text.isEmpty else { throw .init("is empty") }
        if String(text.filter { $0 != " " }) == "now()" { self = .now; return }
        if let colon = text.firstIndex(of: ":") {
            let name = String(text[..<colon]).trimmingSpaces
            guard let function = StringFunction(rawValue: name) else {
                throw .init("calls '\(name):', which is not lowercase:, uppercase: or canonical:")
            }
            var argument = String(text[text.index(after: colon)...]).trimmingSpaces
            guard argument.hasPrefix("("), argument.hasSuffix(")"), argument.count >= 2 else {
                throw .init("gives \(name): no key path in parentheses, as in \(name):(title)")
            }
            argument = String(argument.dropFirst().dropLast()).trimmingSpaces
            self = .function(function, try Self.names(argument.split(separator: ".", omittingEmptySubsequences: false)))
            return
        }
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard let at = parts.firstIndex(where: { $0.hasPrefix("@") }) else {
            self = .keyPath(try Self.names(parts)); return
        }
        let path = try Self.names(parts[..<at]), rest = parts[(at + 1)...]
        let operation = String(parts[at].dropFirst())
        if operation == "count" {
            guard rest.isEmpty, !path.isEmpty else { throw .init("must end in @count after a to-many relationship, as in notes.@count") }
            self = .count(path); return
        }
        guard let aggregate = Aggregate(rawValue: operation) else {
            throw .init("uses @\(operation), which is not @count, @sum, @avg, @min or @max")
        }
        if rest.isEmpty, path.count >= 2 {
            self = .aggregate(aggregate, Array(path.dropLast()), attribute: path.last!); return
        }
        guard rest.count == 1, !path.isEmpty else {
            throw .init("must name a to-many relationship, @\(operation) and one attribute, as in notes.@\(operation).size")
        }
        self = .aggregate(aggregate, path, attribute: try Self.names(rest)[0])
    }

    /// The parts as property names (none for an empty prefix).
    private static func names<S: Collection>(_ parts: S) throws(DerivationExpressionError) -> [String]
    where S.Element == Substring {
        let names = parts.map { String($0).trimmingSpaces }
        guard names.allSatisfy(Identifier.isValid) else {
            throw .init("is no key path of property names")
        }
        return names
    }
}

/// Why a derivation expression is refused, said as the end of a sentence about it.
public struct DerivationExpressionError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What is wrong with the expression ("uses @median, which is not …").
    public let reason: String

    init(_ reason: String) { self.reason = reason }

    public var description: String { reason }
}

extension String {
    fileprivate var trimmingSpaces: String {
        String(drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
    }
}
