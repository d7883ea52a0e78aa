/// A relationship asked to do what it cannot: one case per failure, each with its message.
/// Thrown by `ManagedObject` and `ObjectContext` before anything changes.
public enum RelationshipError: Error, CustomStringConvertible, Equatable, Sendable {
    /// `target` is not of the relationship's destination entity (or a sub-entity of it).
    case wrongDestination(entity: String, relationship: String, destination: String, target: GlobalID)
    /// A to-one relationship used as a to-many, or the other way round.
    case wrongKind(entity: String, relationship: String, isToMany: Bool)
    /// An ordered operation (`insert(_:into:at:)`, `move`) on an unordered relationship.
    case notOrdered(entity: String, relationship: String)
    /// An index outside `0…upperBound` for a member of `object`'s ordered relationship.
    case indexOutOfRange(index: Int, upperBound: Int, relationship: String, object: GlobalID)
    /// `move` of an object that is not a member of the relationship.
    case notAMember(GlobalID, relationship: String, object: GlobalID)
    /// A conflict's losing position cannot be restored: the relationship is not an ordered
    /// to-many, or `key` is not a position key.
    case invalidPosition(key: String, entity: String, relationship: String)

    public var description: String {
        switch self {
        case let .wrongDestination(entity, relationship, destination, target):
            return "\(entity).\(relationship) holds \(destination), not \(target.entity) (\(target))"
        case let .wrongKind(entity, relationship, isToMany):
            return "\(entity).\(relationship) is a \(isToMany ? "to-many" : "to-one") relationship, not a \(isToMany ? "to-one" : "to-many") one"
        case let .notOrdered(entity, relationship): return "\(entity).\(relationship) is not an ordered relationship"
        case let .indexOutOfRange(index, upperBound, relationship, object):
            return "index \(index) is out of range 0…\(upperBound) for \(object.entity).\(relationship) of \(object)"
        case let .notAMember(member, relationship, object): return "\(member) is not in \(object.entity).\(relationship) of \(object)"
        case let .invalidPosition(key, entity, relationship): return "\(entity).\(relationship) has no position \(key) to restore"
        }
    }
}
