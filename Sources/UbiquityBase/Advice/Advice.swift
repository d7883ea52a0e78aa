/// A message for a person that names remedies as typed values: written once, with
/// `\(remedy)` where a remedy goes, and worded by whoever shows it — the library names its
/// API, the `ubiq` tool its commands.
public struct Advice: Sendable, Equatable, CustomStringConvertible, ExpressibleByStringInterpolation {
    enum Part: Sendable, Equatable {
        case text(String)
        case remedy(Remedy)
    }

    var parts: [Part]

    public init(stringLiteral value: String) { parts = [.text(value)] }

    public init(stringInterpolation: StringInterpolation) { parts = stringInterpolation.parts }

    /// The message, each remedy worded by `word`.
    public func worded(_ word: (Remedy) -> String) -> String {
        parts.map { part in
            switch part {
            case let .text(text): return text
            case let .remedy(remedy): return word(remedy)
            }
        }.joined()
    }

    /// The message in the library's terms.
    public var description: String { worded(\.description) }

    /// The remedies the message names, in order.
    public var remedies: [Remedy] {
        parts.compactMap { if case let .remedy(remedy) = $0 { remedy } else { nil } }
    }

    public struct StringInterpolation: StringInterpolationProtocol {
        var parts: [Part] = []

        public init(literalCapacity: Int, interpolationCount: Int) {}

        public mutating func appendLiteral(_ literal: String) { parts.append(.text(literal)) }

        public mutating func appendInterpolation(_ remedy: Remedy) { parts.append(.remedy(remedy)) }

        public mutating func appendInterpolation(_ advice: Advice) { parts += advice.parts }

        public mutating func appendInterpolation(_ value: some Any) { parts.append(.text("\(value)")) }
    }
}

/// An error whose message names remedies (`Advice`), so that a tool can word them as its
/// own commands; its `description` words them as the library's API.
public protocol AdvisingError: Error, CustomStringConvertible {
    /// The message, remedies typed.
    var advice: Advice { get }
}

extension AdvisingError {
    public var description: String { advice.description }
}
