/// One uniqueness constraint as it applies to objects: the properties whose values, together,
/// no two live objects of its scope may share, and the scope — the entity that declares it and
/// its sub-entities (a constraint of `Item` holds across `Book` and `Magazine`, as in Core Data).
public struct UniquenessConstraint: Sendable, Hashable, CustomStringConvertible {
    /// The topmost entity whose resolved constraints hold this one.
    public let scope: String
    /// The attributes and to-one relationships constrained, as the model names them.
    public let properties: [String]

    public init(scope: String, properties: [String]) {
        self.scope = scope
        self.properties = properties
    }

    public var description: String { "\(scope) (\(properties.joined(separator: ", ")))" }
}

extension ObjectModel {
    /// The uniqueness constraints that apply to objects of `entity` (its own and its
    /// ancestors'), each with its scope; empty for an entity without any, so callers skip it.
    public func uniquenessConstraints(of entity: String) -> [UniquenessConstraint] {
        guard let description = self.entity(entity), !description.uniquenessConstraints.isEmpty else { return [] }
        return description.uniquenessConstraints.map { properties in
            var scope = description.name
            while let parent = self.entity(scope)?.parent, self.entity(parent)?.uniquenessConstraints.contains(properties) == true {
                scope = parent
            }
            return UniquenessConstraint(scope: scope, properties: properties)
        }
    }

    /// Whether any entity of the model has a uniqueness constraint.
    public var hasUniquenessConstraints: Bool { entities.contains { !$0.uniquenessConstraints.isEmpty } }
}

/// One constrained property's value as a uniqueness constraint compares it: an attribute's
/// value, or a to-one's target. Equal only when exactly equal (strings by their scalars).
public enum ConstrainedValue: Hashable, Sendable, CustomStringConvertible {
    case attribute(AttributeValue)
    case target(GlobalID)

    public var description: String {
        switch self {
        case let .attribute(value): if case let .string(text) = value { text.debugDescription } else { value.description }
        case let .target(target): target.description
        }
    }
}
