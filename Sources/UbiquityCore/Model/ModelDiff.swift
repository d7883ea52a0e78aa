/// What changed from one model version to another, and whether Core Data could infer the
/// mapping (lightweight migration) for each change.
///
/// Entities and properties are matched by name, or by the new one's renaming identifier naming
/// the old one (Core Data's rule). Properties are compared as the entities resolve them, so
/// moving an attribute up to a new parent is no change for the sub-entity. The classification
/// follows Apple's list of inferable changes: attributes, relationships and entities added,
/// removed or renamed; an attribute becoming optional, or required with a default value; a
/// to-one becoming to-many; a to-many becoming ordered or unordered; a new parent or moving an
/// entity out of a hierarchy (never merging two hierarchies), with relationships moved up to the
/// new parent. A change of type, or of destination to anything but a parent of the old one,
/// needs a mapping model; so does a to-many becoming to-one here, which would drop members
/// (Ubiquity's migration loses nothing). Defaults, validation, delete rules and the like change
/// no hash and need no migration.
public struct ModelDiff: Sendable, Equatable {
    /// How a change can be migrated.
    public enum Mapping: Sendable, Equatable {
        /// The model hash does not change for it: nothing to migrate.
        case noMigration
        /// Core Data infers the mapping (lightweight migration).
        case inferred
        /// Only a mapping model could migrate it; the reason says why.
        case needsMappingModel(String)
    }

    public enum Kind: String, Sendable, Equatable {
        case added, removed, renamed, changed
    }

    /// One change: to an entity (`property` nil) or to one of its properties.
    public struct Change: Sendable, Equatable {
        public let kind: Kind
        public let entity: String
        public let property: String?
        /// What changed, for people (`optional → required`, `type integer16 → string`).
        public let detail: String
        public let mapping: Mapping
    }

    public let changes: [Change]
    /// Whether the two models have the same hash (the same folder in the cloud).
    public let sameHash: Bool
    /// For each entity of the new model that existed before: its old name.
    public let oldEntityNames: [String: String]
    /// For each entity of the new model that existed before: each of its stored or transient
    /// properties that existed before, by new name, with its old name.
    public let oldPropertyNames: [String: [String: String]]

    /// Whether a lightweight migration could carry a store from the old model to the new one.
    public var canInferMapping: Bool {
        !changes.contains { if case .needsMappingModel = $0.mapping { return true } else { return false } }
    }

    public init(from old: ObjectModel, to new: ObjectModel) {
        var changes: [Change] = []
        var oldPropertyNames: [String: [String: String]] = [:]
        sameHash = old.hash == new.hash
        var matchedOld: Set<String> = []
        var oldNameOf: [String: String] = [:]  // new entity name → old entity name
        for entity in new.entities {
            oldNameOf[entity.name] = entity.previousVersion(in: old.entities, siblings: new.entities)?.name
            if let previous = oldNameOf[entity.name] { matchedOld.insert(previous) }
        }
        for entity in old.entities where !matchedOld.contains(entity.name) {
            changes.append(Change(kind: .removed, entity: entity.name, property: nil, detail: "entity removed (its objects are dropped)", mapping: .inferred))
        }
        for entity in new.entities {
            guard let previousName = oldNameOf[entity.name], let previous = old.entity(previousName) else {
                changes.append(Change(kind: .added, entity: entity.name, property: nil, detail: "entity added", mapping: .inferred))
                continue
            }
            if previousName != entity.name {
                changes.append(Change(kind: .renamed, entity: entity.name, property: nil, detail: "renamed from \(previousName)", mapping: .inferred))
            }
            changes += Self.entityChanges(previous, entity, old: old, new: new, oldNameOf: oldNameOf)
            var properties: [String: String] = [:]
            changes += Self.attributeChanges(previous, entity, matches: &properties)
            changes += Self.relationshipChanges(previous, entity, new: new, oldNameOf: oldNameOf, matches: &properties)
            oldPropertyNames[entity.name] = properties
        }
        oldEntityNames = oldNameOf
        self.oldPropertyNames = oldPropertyNames
        // A change to a property a sub-entity inherits is reported once, where it is declared.
        let reported = Set(changes.compactMap { change in change.property.map { "\(change.entity).\($0)" } })
        self.changes = changes.filter { change in
            guard let property = change.property, let parent = new.entity(change.entity)?.parent, let declaring = new.entity(parent),
                  declaring.attribute(property) != nil || declaring.relationship(property) != nil
                    || declaring.transientAttribute(property) != nil || declaring.transientRelationships.contains(where: { $0.name == property })
            else { return true }
            return !reported.contains("\(parent).\(property)") && !Self.inheritsReported(parent, property, new: new, reported: reported)
        }
    }

    /// Whether an ancestor of `entity` further up reports a change of `property`.
    private static func inheritsReported(_ entity: String, _ property: String, new: ObjectModel, reported: Set<String>) -> Bool {
        var ancestor = new.entity(entity)?.parent
        while let current = ancestor {
            if reported.contains("\(current).\(property)") { return true }
            ancestor = new.entity(current)?.parent
        }
        return false
    }

    private static func entityChanges(_ previous: EntityDescription, _ entity: EntityDescription, old: ObjectModel, new: ObjectModel,
                                      oldNameOf: [String: String]) -> [Change] {
        var changes: [Change] = []
        func change(_ detail: String, _ mapping: Mapping) {
            changes.append(Change(kind: .changed, entity: entity.name, property: nil, detail: detail, mapping: mapping))
        }
        if previous.isAbstract != entity.isAbstract {
            change(entity.isAbstract ? "becomes abstract" : "is no longer abstract",
                   entity.isAbstract ? .needsMappingModel("its objects cannot exist once it is abstract") : .inferred)
        }
        let previousParent = previous.parent, parent = entity.parent
        if previousParent != parent.map({ oldNameOf[$0] ?? $0 }) {
            let detail = "parent \(previousParent ?? "none") → \(parent ?? "none")"
            // A new parent, or none, is inferred; a parent that existed and was not an ancestor
            // merges two hierarchies, which Core Data cannot infer.
            if let parent, let oldParent = oldNameOf[parent], !old.isKind(previous.name, of: oldParent) {
                change(detail, .needsMappingModel("\(entity.name) would join the hierarchy of \(parent) (hierarchies cannot be merged)"))
            } else {
                change(detail, .inferred)
            }
        }
        if previous.versionHashModifier != entity.versionHashModifier {
            change("version hash modifier \(previous.versionHashModifier ?? "none") → \(entity.versionHashModifier ?? "none")", .inferred)
        }
        if Set(previous.mergeGroups.map(Set.init)) != Set(entity.mergeGroups.map(Set.init)) {
            change("merge groups changed", .inferred)
        }
        if Set(previous.uniquenessConstraints.map(Set.init)) != Set(entity.uniquenessConstraints.map(Set.init)) {
            // Not enforced: nothing in a store depends on them.
            change("uniqueness constraints changed", .inferred)
        }
        return changes
    }

    private static func attributeChanges(_ previous: EntityDescription, _ entity: EntityDescription, matches: inout [String: String]) -> [Change] {
        var changes: [Change] = []
        let before = previous.attributes + previous.transientAttributes, after = entity.attributes + entity.transientAttributes
        var matched: Set<String> = []
        for attribute in after {
            let match = attribute.previousVersion(in: before, siblings: after)
            func change(_ kind: Kind, _ detail: String, _ mapping: Mapping) {
                changes.append(Change(kind: kind, entity: entity.name, property: attribute.name, detail: detail, mapping: mapping))
            }
            guard let match else {
                change(.added, "attribute added (\(attribute.type.rawValue)\(attribute.isTransient ? ", transient" : ""))", Self.addition(attribute))
                continue
            }
            matched.insert(match.name)
            matches[attribute.name] = match.name
            if match.name != attribute.name { change(.renamed, "renamed from \(match.name)", .inferred) }
            if match.isTransient != attribute.isTransient {
                change(.changed, attribute.isTransient ? "becomes transient (its values are dropped)" : "is no longer transient",
                       attribute.isTransient ? .inferred : Self.addition(attribute))
                continue
            }
            if (match.derivation == nil) != (attribute.derivation == nil) {
                change(.changed, attribute.derivation != nil ? "becomes derived (its stored values are dropped)" : "is no longer derived",
                       attribute.derivation != nil ? .inferred : Self.addition(attribute))
                continue
            }
            if match.type != attribute.type {
                change(.changed, "type \(match.type.rawValue) → \(attribute.type.rawValue)",
                       attribute.isTransient ? .inferred : .needsMappingModel("an attribute's type cannot change by inference"))
            }
            if match.isOptional != attribute.isOptional {
                if attribute.isOptional || attribute.isTransient {
                    change(.changed, "required → optional", .inferred)
                } else if attribute.defaultValue != nil {
                    change(.changed, "optional → required, with a default value", .inferred)
                } else {
                    change(.changed, "optional → required", .needsMappingModel("a required attribute needs a default value for objects without one"))
                }
            }
            if match.versionHashModifier != attribute.versionHashModifier {
                change(.changed, "version hash modifier \(match.versionHashModifier ?? "none") → \(attribute.versionHashModifier ?? "none")", .inferred)
            }
            var unhashed: [String] = []
            if match.defaultValue != attribute.defaultValue { unhashed.append("default value") }
            if match.validation != attribute.validation { unhashed.append("validation") }
            if match.allowsExternalBinaryDataStorage != attribute.allowsExternalBinaryDataStorage { unhashed.append("external storage") }
            if match.valueTransformerName != attribute.valueTransformerName { unhashed.append("value transformer") }
            if match.derivation != attribute.derivation { unhashed.append("derivation") }
            if !unhashed.isEmpty { change(.changed, unhashed.joined(separator: ", ") + " changed", .noMigration) }
        }
        for attribute in before where !matched.contains(attribute.name) {
            changes.append(Change(kind: .removed, entity: entity.name, property: attribute.name,
                                  detail: "attribute removed\(attribute.isTransient ? "" : " (its values are dropped)")", mapping: .inferred))
        }
        return changes
    }

    /// An added (or no longer transient) attribute: existing objects need a value for it.
    private static func addition(_ attribute: AttributeDescription) -> Mapping {
        attribute.isOptional || attribute.isKeptInMemoryOnly || attribute.defaultValue != nil
            ? .inferred : .needsMappingModel("a required attribute without a default value has no value for existing objects")
    }

    private static func relationshipChanges(_ previous: EntityDescription, _ entity: EntityDescription, new: ObjectModel,
                                            oldNameOf: [String: String], matches: inout [String: String]) -> [Change] {
        var changes: [Change] = []
        let before = previous.relationships + previous.transientRelationships, after = entity.relationships + entity.transientRelationships
        var matched: Set<String> = []
        for relationship in after {
            let match = relationship.previousVersion(in: before, siblings: after)
            func change(_ kind: Kind, _ detail: String, _ mapping: Mapping) {
                changes.append(Change(kind: kind, entity: entity.name, property: relationship.name, detail: detail, mapping: mapping))
            }
            let required = !relationship.isTransient && (relationship.isToMany ? relationship.minCount > 0 || !relationship.isOptional : !relationship.isOptional)
            guard let match else {
                change(.added, "relationship added (\(relationship.isToMany ? "to-many" : "to-one") \(relationship.destination))",
                       required ? .needsMappingModel("a required relationship has no target for existing objects") : .inferred)
                continue
            }
            matched.insert(match.name)
            matches[relationship.name] = match.name
            if match.name != relationship.name { change(.renamed, "renamed from \(match.name)", .inferred) }
            if oldNameOf[relationship.destination] != match.destination {
                // To a parent of the old destination (a new parent, properties moved up): every
                // old target is still a target. Anything else is not inferred.
                let widened = oldNameOf.first { $0.value == match.destination }.map { new.isKind($0.key, of: relationship.destination) } ?? false
                change(.changed, "destination \(match.destination) → \(relationship.destination)",
                       widened ? .inferred : .needsMappingModel("a relationship's destination cannot change by inference, except to a parent of the old one"))
            }
            if match.isToMany != relationship.isToMany {
                if relationship.isToMany {
                    change(.changed, "to-one → to-many", .inferred)
                } else {
                    change(.changed, "to-many → to-one", .needsMappingModel("a to-many becoming to-one would keep one member and drop the others"))
                }
            }
            if match.isToMany, relationship.isToMany, match.isOrdered != relationship.isOrdered {
                change(.changed, relationship.isOrdered ? "unordered → ordered" : "ordered → unordered", .inferred)
            }
            if match.inverse != relationship.inverse { change(.changed, "inverse \(match.inverse ?? "none") → \(relationship.inverse ?? "none")", .inferred) }
            if match.isOptional != relationship.isOptional || match.minCount != relationship.minCount || match.maxCount != relationship.maxCount {
                change(.changed, "optionality or counts changed (existing objects are checked at their next save)", .inferred)
            }
            if match.isTransient != relationship.isTransient { change(.changed, relationship.isTransient ? "becomes transient" : "is no longer transient", .inferred) }
            if match.versionHashModifier != relationship.versionHashModifier {
                change(.changed, "version hash modifier \(match.versionHashModifier ?? "none") → \(relationship.versionHashModifier ?? "none")", .inferred)
            }
            if match.deleteRule != relationship.deleteRule {
                change(.changed, "delete rule \(match.deleteRule.rawValue) → \(relationship.deleteRule.rawValue)", .noMigration)
            }
        }
        for relationship in before where !matched.contains(relationship.name) {
            changes.append(Change(kind: .removed, entity: entity.name, property: relationship.name, detail: "relationship removed", mapping: .inferred))
        }
        return changes
    }
}
