/// A `name=value` that is malformed or cannot be applied: one case per failure, each with its
/// message. (A target of the wrong entity is a `RelationshipError`, as it is for `setTarget`.)
public enum PropertyAssignmentError: Error, CustomStringConvertible, Equatable, Sendable {
    /// The argument has no `=`, or no name before it.
    case notAnAssignment(String)
    /// A to-many relationship was given a value: its members are related one by one instead.
    case toManyAssigned(entity: String, relationship: String)
    /// `update --expect` named a to-many relationship: only attributes and to-ones are expected.
    case toManyExpected(entity: String, relationship: String)
    /// The text is not a value of the attribute's type (`text` is cut to 80 characters).
    case invalidValue(String, entity: String, attribute: String, type: AttributeType)

    public var description: String {
        switch self {
        case let .notAnAssignment(argument): return "expected attribute=value, not '\(argument)'"
        case let .toManyAssigned(entity, relationship): return "\(entity).\(relationship) is a to-many relationship: relate the objects instead"
        case let .toManyExpected(entity, relationship):
            return "\(entity).\(relationship) is a to-many relationship: only attributes and to-one relationships can be expected"
        case let .invalidValue(text, entity, attribute, type):
            return "invalid value '\(text)' for \(entity).\(attribute): expected \(PropertyAssignment.expectation(type))"
        }
    }
}
