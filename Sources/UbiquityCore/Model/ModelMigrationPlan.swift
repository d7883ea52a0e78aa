/// How a store made for one model version is carried to another by inferred mapping
/// (lightweight migration), decided before anything is touched.
///
/// The plan is `ModelDiff`'s matching (entities and properties by name or renaming
/// identifier) checked for what a store can carry: every change must be one Core Data infers,
/// and every relationship's data must have somewhere to go. A plan that cannot be made throws
/// `ModelMigrationError`, naming each entity and property and why.
public struct ModelMigrationPlan: Sendable {
    public let source: ObjectModel
    public let destination: ObjectModel
    public let diff: ModelDiff

    public init(from source: ObjectModel, to destination: ObjectModel) throws(ModelMigrationError) {
        self.source = source
        self.destination = destination
        diff = ModelDiff(from: source, to: destination)
        var refusals: [ModelMigrationError.Refusal] = []
        for change in diff.changes {
            if case let .needsMappingModel(reason) = change.mapping {
                refusals.append(.init(entity: change.entity, property: change.property, detail: change.detail, reason: reason))
            }
        }
        // A to-many kept as pairs cannot become one read from a new inverse to-one: a target
        // may belong to several sources, and the to-one holds one.
        for entity in destination.entities {
            for relationship in entity.relationships where relationship.isToMany {
                guard case .derivedFromInverse = destination.storage(of: relationship, in: entity),
                      let oldEntity = oldEntity(of: entity.name), let oldName = oldProperty(relationship.name, of: entity.name),
                      let old = oldEntity.relationship(oldName), case .pairTable = source.storage(of: old, in: oldEntity) else { continue }
                refusals.append(.init(entity: entity.name, property: relationship.name, detail: "now read from its inverse to-one \(relationship.inverse ?? "")",
                                      reason: "its pairs cannot become a to-one inverse (a target may belong to several objects)"))
            }
        }
        guard refusals.isEmpty else { throw ModelMigrationError(source: source, destination: destination, refusals: refusals) }
    }

    /// The old entity whose objects become objects of the new entity `name`.
    public func oldEntity(of name: String) -> EntityDescription? {
        diff.oldEntityNames[name].flatMap(source.entity)
    }

    /// The old name of property `property` of the new entity `entity`, if it existed before.
    public func oldProperty(_ property: String, of entity: String) -> String? {
        diff.oldPropertyNames[entity]?[property]
    }

    /// Renamed entities, old name → new name (their objects' global IDs are renamed too).
    public var renamedEntities: [String: String] {
        Dictionary(uniqueKeysWithValues: diff.oldEntityNames.filter { $0.key != $0.value }.map { ($0.value, $0.key) })
    }

    /// Whether existing objects of the new `entity` get `attribute`'s default value where they
    /// hold none: the attribute is new (or no longer transient), or became required.
    public func fillsDefault(_ attribute: AttributeDescription, of entity: String) -> Bool {
        guard attribute.defaultValue != nil else { return false }
        guard let oldEntity = oldEntity(of: entity), let oldName = oldProperty(attribute.name, of: entity),
              let old = oldEntity.attribute(oldName) else { return true }
        return old.isOptional && !attribute.isOptional
    }
}

/// A model change that a store cannot be migrated by: nothing was touched.
public struct ModelMigrationError: Error, CustomStringConvertible, Sendable, Equatable {
    /// One change the inferred mapping cannot carry.
    public struct Refusal: Sendable, Equatable {
        public let entity: String
        public let property: String?
        public let detail: String
        public let reason: String
    }

    public let sourceName: String
    public let sourceHash: String
    public let destinationName: String
    public let destinationHash: String
    public let refusals: [Refusal]

    init(source: ObjectModel, destination: ObjectModel, refusals: [Refusal]) {
        sourceName = source.name
        sourceHash = source.hash
        destinationName = destination.name
        destinationHash = destination.hash
        self.refusals = refusals
    }

    public var description: String {
        let items = refusals.map { "\($0.entity)\($0.property.map { "." + $0 } ?? ""): \($0.detail) — \($0.reason)" }
        return "the store cannot be migrated from model '\(sourceName)' (\(sourceHash)) to '\(destinationName)' (\(destinationHash)) by inferred mapping; nothing was changed and the store still opens with '\(sourceName)': "
            + items.joined(separator: "; ")
    }
}
