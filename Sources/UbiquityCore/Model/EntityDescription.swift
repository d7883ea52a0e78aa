/// What happens to related objects when an object is deleted (Core Data's delete rules).
public enum DeleteRule: String, Sendable, Codable, CaseIterable {
    /// The related objects stay; their reference to the deleted object reads as absent.
    case nullify
    /// The related objects are deleted too, in the same save.
    case cascade
    /// The delete fails while the relationship is not empty.
    case deny
}

/// An attribute of an entity.
public struct AttributeDescription: Sendable, Equatable {
    public var name: String
    public var type: AttributeType
    public var isOptional: Bool
    /// The value a new object gets when the app sets none (required attributes need one or a value at save).
    public var defaultValue: AttributeValue?

    public init(_ name: String, _ type: AttributeType, optional: Bool = true, default defaultValue: AttributeValue? = nil) {
        self.name = name
        self.type = type
        self.isOptional = optional
        self.defaultValue = defaultValue
    }
}

/// A relationship of an entity. Inverses are named on both sides.
public struct RelationshipDescription: Sendable, Equatable {
    public var name: String
    public var destination: String
    public var inverse: String?
    public var isToMany: Bool
    public var deleteRule: DeleteRule

    public init(_ name: String, destination: String, inverse: String? = nil, toMany: Bool = false, deleteRule: DeleteRule = .nullify) {
        self.name = name
        self.destination = destination
        self.inverse = inverse
        self.isToMany = toMany
        self.deleteRule = deleteRule
    }
}

/// An entity: a kind of object with attributes and relationships.
public struct EntityDescription: Sendable, Equatable {
    public var name: String
    public var attributes: [AttributeDescription]
    public var relationships: [RelationshipDescription]
    /// Groups of attributes that are won together in a merge (e.g. street, city, zip).
    public var mergeGroups: [[String]]

    public init(_ name: String, attributes: [AttributeDescription] = [], relationships: [RelationshipDescription] = [], mergeGroups: [[String]] = []) {
        self.name = name
        self.attributes = attributes
        self.relationships = relationships
        self.mergeGroups = mergeGroups
    }

    public func attribute(_ name: String) -> AttributeDescription? { attributes.first { $0.name == name } }
    public func relationship(_ name: String) -> RelationshipDescription? { relationships.first { $0.name == name } }
}
