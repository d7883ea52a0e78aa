/// What happens to related objects when an object is deleted (Core Data's delete rules).
public enum DeleteRule: String, Sendable, Codable, CaseIterable {
    /// The related objects stay; their reference to the deleted object reads as absent.
    case nullify
    /// The related objects are deleted too, in the same save.
    case cascade
    /// The delete fails while the relationship is not empty.
    case deny
    /// Core Data's "No Action": the related objects are left as they are. A reference to a
    /// deleted object reads as absent in this store, so it behaves as `nullify`.
    case noAction
}

/// The validation rules of an attribute, as Core Data has them: a value range (numbers and
/// dates), a length range (strings in UTF-16 units as `NSString` counts them, binary data in
/// bytes) and a regular expression the whole string must match. Checked on save and on import;
/// not part of the model hash (Core Data leaves them out of `versionHash`).
public struct AttributeValidation: Sendable, Equatable {
    public var minimum: AttributeValue?
    public var maximum: AttributeValue?
    public var minLength: Int?
    public var maxLength: Int?
    /// An ICU regular expression (`NSRegularExpression`), matched against the whole string.
    public var pattern: String? {
        didSet { compiledPattern = pattern.flatMap(WholeStringPattern.init) }
    }
    /// `pattern` compiled, once; `nil` also when it does not compile (a model holding such a
    /// pattern is refused when it loads).
    private(set) var compiledPattern: WholeStringPattern?

    public init(minimum: AttributeValue? = nil, maximum: AttributeValue? = nil, minLength: Int? = nil, maxLength: Int? = nil, pattern: String? = nil) {
        self.minimum = minimum
        self.maximum = maximum
        self.minLength = minLength
        self.maxLength = maxLength
        self.pattern = pattern
        compiledPattern = pattern.flatMap(WholeStringPattern.init)
    }

    /// Whether there is no rule at all.
    public var isEmpty: Bool { minimum == nil && maximum == nil && minLength == nil && maxLength == nil && pattern == nil }
}

/// An attribute of an entity.
public struct AttributeDescription: Sendable, Equatable {
    public var name: String
    public var type: AttributeType
    public var isOptional: Bool
    /// The value a new object gets when the app sets none (required attributes need one or a value at save).
    public var defaultValue: AttributeValue?
    /// Kept in memory by a context, never stored, logged or synced.
    public var isTransient: Bool
    public var validation: AttributeValidation
    /// Core Data's `versionHashModifier`: changes the model hash without changing the attribute.
    public var versionHashModifier: String?
    /// The name this attribute had in an earlier model version (Core Data's `renamingIdentifier`).
    public var renamingIdentifier: String?
    /// Core Data's "Allows External Storage" (binary and transformable attributes): a large value
    /// is kept in a file beside the store and travels as a file of the container, its log
    /// naming it by hash (`ExternalDataFolder`); a small one stays inline.
    public var allowsExternalBinaryDataStorage: Bool
    /// The value transformer a transformable attribute's bytes belong to (the app's business).
    public var valueTransformerName: String?
    /// Core Data's derived attribute (`NSDerivedAttributeDescription`): the expression its value
    /// is computed from (`lowercase:(title)`, `items.@count`, `now()`), checked at model load
    /// (`derivationExpression`). Kept and shown; the value is not computed yet, so, like a
    /// transient attribute, it is never stored, logged or synced.
    public var derivation: String?

    public init(_ name: String, _ type: AttributeType, optional: Bool = true, default defaultValue: AttributeValue? = nil,
                transient: Bool = false, validation: AttributeValidation = AttributeValidation(),
                versionHashModifier: String? = nil, renamingIdentifier: String? = nil,
                allowsExternalBinaryDataStorage: Bool = false, valueTransformerName: String? = nil, derivation: String? = nil) {
        self.name = name
        self.type = type
        self.isOptional = optional
        self.defaultValue = defaultValue
        self.isTransient = transient
        self.validation = validation
        self.versionHashModifier = versionHashModifier
        self.renamingIdentifier = renamingIdentifier
        self.allowsExternalBinaryDataStorage = allowsExternalBinaryDataStorage
        self.valueTransformerName = valueTransformerName
        self.derivation = derivation
    }

    /// Whether the attribute's values live in memory only (transient or derived): never stored,
    /// logged or synced.
    public var isKeptInMemoryOnly: Bool { isTransient || derivation != nil }
}

/// A relationship of an entity. Inverses are named on both sides.
public struct RelationshipDescription: Sendable, Equatable {
    public var name: String
    /// The destination entity; its sub-entities' objects may be targets too.
    public var destination: String
    public var inverse: String?
    public var isToMany: Bool
    public var deleteRule: DeleteRule
    /// A required to-one needs a target at save; a required to-many at least one member.
    public var isOptional: Bool
    /// Core Data's ordered to-many (an `NSOrderedSet`): the members' order is stored and synced
    /// (each member's position key with the stamp of its last placement), and concurrent moves
    /// of one member merge as concurrent writes of a value do.
    public var isOrdered: Bool
    /// The fewest members a to-many may hold at save (0: no limit).
    public var minCount: Int
    /// The most members a to-many may hold at save (0: no limit).
    public var maxCount: Int
    /// Never stored, logged or synced.
    public var isTransient: Bool
    public var versionHashModifier: String?
    public var renamingIdentifier: String?

    public init(_ name: String, destination: String, inverse: String? = nil, toMany: Bool = false, deleteRule: DeleteRule = .nullify,
                optional: Bool = true, ordered: Bool = false, minCount: Int = 0, maxCount: Int = 0, transient: Bool = false,
                versionHashModifier: String? = nil, renamingIdentifier: String? = nil) {
        self.name = name
        self.destination = destination
        self.inverse = inverse
        self.isToMany = toMany
        self.deleteRule = deleteRule
        self.isOptional = optional
        self.isOrdered = ordered
        self.minCount = minCount
        self.maxCount = maxCount
        self.isTransient = transient
        self.versionHashModifier = versionHashModifier
        self.renamingIdentifier = renamingIdentifier
    }
}

/// An entity: a kind of object with attributes and relationships.
///
/// As declared (`ObjectModel.declaredEntities`) it lists its own properties, transient ones
/// included. As the model resolves it (`ObjectModel.entities`, what stores and contexts use),
/// `attributes` and `relationships` are every stored property — the parent's first — and the
/// transient ones are in `transientAttributes` and `transientRelationships`.
public struct EntityDescription: Sendable, Equatable {
    public var name: String
    public var attributes: [AttributeDescription]
    public var relationships: [RelationshipDescription]
    /// Groups of attributes that are won together in a merge (e.g. street, city, zip).
    public var mergeGroups: [[String]]
    /// The parent entity, whose properties this one inherits; a fetch of the parent returns
    /// this entity's objects too.
    public var parent: String?
    /// An abstract entity has no objects of its own (only its sub-entities' objects).
    public var isAbstract: Bool
    public var versionHashModifier: String?
    /// The name this entity had in an earlier model version (Core Data's `renamingIdentifier`).
    public var renamingIdentifier: String?
    /// Attributes a context keeps in memory only (resolved entities; see above).
    public var transientAttributes: [AttributeDescription] = []
    /// Relationships that are never stored (resolved entities; see above).
    public var transientRelationships: [RelationshipDescription] = []
    /// Core Data's uniqueness constraints: each one names the properties (attributes or to-one
    /// relationships) whose values, together, no two objects of the entity may share. A
    /// sub-entity has its parent's too. Kept at save and across devices (Docs/SyncSemantics.md,
    /// uniqueness constraints; `ObjectModel.uniquenessConstraints(of:)` gives each its scope).
    public var uniquenessConstraints: [[String]] = []

    public init(_ name: String, attributes: [AttributeDescription] = [], relationships: [RelationshipDescription] = [], mergeGroups: [[String]] = [],
                parent: String? = nil, abstract: Bool = false, versionHashModifier: String? = nil, renamingIdentifier: String? = nil) {
        self.name = name
        self.attributes = attributes
        self.relationships = relationships
        self.mergeGroups = mergeGroups
        self.parent = parent
        self.isAbstract = abstract
        self.versionHashModifier = versionHashModifier
        self.renamingIdentifier = renamingIdentifier
    }

    /// A stored attribute.
    /// (Found by index: `first(where:)` copied every description it passed.)
    public func attribute(_ name: String) -> AttributeDescription? { attributes.firstIndex { $0.name == name }.map { attributes[$0] } }
    /// A stored relationship.
    public func relationship(_ name: String) -> RelationshipDescription? { relationships.first { $0.name == name } }
    /// A transient or derived attribute (kept in memory only).
    public func transientAttribute(_ name: String) -> AttributeDescription? { transientAttributes.first { $0.name == name } }
}
