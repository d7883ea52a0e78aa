import UbiquityBase

/// Why a relationship edit named by IDs (`relate`, `unrelate`) was refused.
public enum RelationshipEditError: Error, CustomStringConvertible, Equatable, Sendable {
    /// The target's entity is not the relationship's destination.
    case wrongDestination(entity: String, relationship: String, destination: String, target: GlobalID)
    /// An index was given for a relationship that is not an ordered to-many one.
    case notOrderedToMany(entity: String, relationship: String)
    /// A to-one relationship to clear points elsewhere.
    case doesNotPoint(source: GlobalID, relationship: String, target: GlobalID)

    public var description: String {
        switch self {
        case let .wrongDestination(entity, relationship, destination, target): return "\(entity).\(relationship) holds \(destination), not \(target)"
        case let .notOrderedToMany(entity, relationship): return "an index needs an ordered to-many relationship; \(entity).\(relationship) is not one"
        case let .doesNotPoint(source, relationship, target): return "\(source).\(relationship) does not point to \(target)"
        }
    }
}

extension ObjectContext {
    /// Points `relationship` of `source` at `target` and saves: a to-one is set, `target` is
    /// added to a to-many (inserted at `index` of an ordered one, when given). With `present`
    /// false `target` is removed instead (a to-one is cleared only if it points there). Both
    /// objects must exist and `target` be of the relationship's destination.
    public func relate(_ source: GlobalID, _ relationship: String, _ target: GlobalID, present: Bool = true, at index: Int? = nil) throws {
        guard let object = try object(source) else { throw StoreError.objectNotFound(source) }
        guard let description = object.entity.relationship(relationship) else {
            throw ModelError.unknownProperty(entity: object.entity.name, property: relationship)
        }
        guard target.entity == description.destination else {
            throw RelationshipEditError.wrongDestination(entity: object.entity.name, relationship: relationship, destination: description.destination, target: target)
        }
        guard try self.object(target) != nil else { throw StoreError.objectNotFound(target) }
        if let index {
            guard description.isToMany, description.isOrdered else { throw RelationshipEditError.notOrderedToMany(entity: object.entity.name, relationship: relationship) }
            try object.insert(target, into: relationship, at: index)
            try save()
            return
        }
        switch (description.isToMany, present) {
        case (true, true): try object.add(target, to: relationship)
        case (true, false): try object.remove(target, from: relationship)
        case (false, true): try object.setTarget(target, of: relationship)
        case (false, false):
            guard try object.target(of: relationship) == target else {
                throw RelationshipEditError.doesNotPoint(source: source, relationship: relationship, target: target)
            }
            try object.setTarget(nil, of: relationship)
        }
        try save()
    }
}
