import Foundation

/// An ICU regular expression compiled to match a whole string, as `MATCHES` does in a Core Data
/// predicate and as an attribute's validation pattern is checked. Compiled once by whoever
/// holds the pattern (a model's attribute, a parsed predicate): validation runs for every value
/// saved or imported, and nothing needs a process-wide memo of compiled patterns.
struct WholeStringPattern: Sendable, Equatable {
    /// The pattern as written.
    let source: String
    private let expression: NSRegularExpression

    /// `nil` when `source` is not a valid ICU regular expression.
    init?(_ source: String) {
        // The bare pattern first: wrapped, an unbalanced `)` in it could close the group.
        guard (try? NSRegularExpression(pattern: source)) != nil,
              let expression = try? NSRegularExpression(pattern: "(?:" + source + ")\\z") else { return nil }
        self.source = source
        self.expression = expression
    }

    /// Whether the pattern matches the whole of `text`.
    func matches(_ text: String) -> Bool {
        expression.firstMatch(in: text, options: [.anchored], range: NSRange(text.startIndex..., in: text)) != nil
    }

    static func == (lhs: Self, rhs: Self) -> Bool { lhs.source == rhs.source }
}
