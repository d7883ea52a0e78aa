/// A fetch request kept in a model by name: Xcode's `<fetchRequest>` (Core Data's fetch request
/// templates), and the request of a fetched property.
///
/// The predicate is kept as NSPredicate text, `$NAME` marking a substitution variable: it is
/// parsed when the request is made (`ObjectModel.fetchRequest(fromTemplate:substitutionVariables:)`),
/// with each variable's value typed by the attribute it is compared with. Templates are not part
/// of the model hash (Core Data's version hash ignores them).
public struct FetchRequestTemplate: Sendable, Equatable {
    public var name: String
    /// The entity whose objects the request fetches.
    public var entity: String
    /// NSPredicate text; `nil` fetches every object.
    public var predicate: String?
    /// At most this many objects (Xcode's `fetchLimit`; absent or 0 means no limit).
    public var limit: Int?
    /// Whether sub-entities' objects are fetched too (Xcode's `includeSubentities`, on by default).
    public var includesSubentities: Bool

    public init(name: String, entity: String, predicate: String? = nil, limit: Int? = nil, includesSubentities: Bool = true) {
        self.name = name
        self.entity = entity
        self.predicate = predicate
        self.limit = limit
        self.includesSubentities = includesSubentities
    }
}

/// A fetched property (Core Data's `NSFetchedPropertyDescription`): a query of an entity,
/// evaluated on demand for one of its objects. Its predicate names the object as
/// `$FETCH_SOURCE`. Never stored, logged or synced, and not part of the model hash.
public struct FetchedPropertyDescription: Sendable, Equatable {
    public var name: String
    /// The entity that declares the property (its sub-entities have it too).
    public var entity: String
    /// What the property fetches.
    public var request: FetchRequestTemplate

    public init(name: String, entity: String, request: FetchRequestTemplate) {
        self.name = name
        self.entity = entity
        self.request = request
    }
}

/// A named subset of a model's entities (Xcode's `<configuration>`), as listed in the model.
public struct ModelConfiguration: Sendable, Equatable {
    public var name: String
    /// The member entities, as the model file lists them.
    public var entities: [String]

    public init(name: String, entities: [String]) {
        self.name = name
        self.entities = entities
    }
}
