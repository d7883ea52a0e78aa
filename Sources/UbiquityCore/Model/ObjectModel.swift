import Crypto
import Foundation
import UbiquityBase

/// A validated object model: entities with attributes, relationships and merge groups.
///
/// The model keeps its entities as declared (`declaredEntities`: each one's own properties, the
/// hash and model files come from these) and resolved (`entities`: inherited properties
/// included, transient ones set apart — what stores and contexts use). Validation resolves
/// every relationship's storage (`RelationshipStorage`) and every entity's merge slots once, so
/// the store and the sync code never re-derive them.
public struct ObjectModel: Sendable, Equatable {
    public let name: String
    /// The entities resolved: every stored property, inherited ones first.
    public let entities: [EntityDescription]
    /// The entities as the model file or the app declared them.
    public let declaredEntities: [EntityDescription]
    /// Filename-safe base64 (RFC 4648 §5, unpadded) of the SHA-256 of `canonicalDescription`.
    public let hash: String
    /// What the loader noted while reading the model file: leniencies (a value read as Core
    /// Data reads it, an element ignored) at `.info`, and what the model holds that Ubiquity
    /// keeps but does not honour yet at `.warning`. Not part of the model's identity.
    public var notes: [ModelNote] = []
    /// The model's fetch request templates, as declared (Xcode's `<fetchRequest>`). Like the
    /// notes, not part of the model's identity: neither its hash nor `==`.
    public var fetchRequestTemplates: [FetchRequestTemplate] = []
    /// The fetched properties of every entity, as declared. Not part of the model's identity.
    public var fetchedProperties: [FetchedPropertyDescription] = []
    /// The model's configurations (Xcode's `<configuration>`), listed only. Not part of the
    /// model's identity.
    public var configurations: [ModelConfiguration] = []
    /// The configuration this model was restricted to (`restricted(toConfiguration:)`), so an
    /// entity outside it is named as such.
    public internal(set) var configurationName: String?
    private let entityIndex: [String: Int]
    /// Each entity with its sub-entities at every depth, itself first.
    private let family: [String: [String]]
    /// "Entity.relationship" → the entity that declares it (itself or an ancestor).
    private let declaringEntity: [String: String]

    public init(name: String, entities declared: [EntityDescription]) throws(ModelError) {
        self.name = name
        self.declaredEntities = declared
        var index: [String: Int] = [:]
        for (offset, entity) in declared.enumerated() {
            guard Identifier.isValid(entity.name) else { throw .invalidName("entity", entity.name) }
            guard index.updateValue(offset, forKey: entity.name) == nil else { throw .duplicate("entity \(entity.name)") }
        }
        self.entityIndex = index
        let resolution = try Self.resolve(declared, index: index)
        self.entities = resolution.entities
        self.family = resolution.family
        self.declaringEntity = resolution.declaringEntity
        for entity in resolution.entities { try Self.validate(entity, model: resolution, index: index) }
        let digest = SHA256.hash(data: Array(Self.canonicalDescription(of: declared).utf8))
        self.hash = Data(digest).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    public static func == (lhs: ObjectModel, rhs: ObjectModel) -> Bool {
        lhs.name == rhs.name && lhs.entities == rhs.entities
    }

    public func entity(_ name: String) -> EntityDescription? { entityIndex[name].map { entities[$0] } }

    public func entity(named name: String) throws(ModelError) -> EntityDescription {
        guard let entity = entity(name) else {
            if let configurationName { throw .entityOutsideConfiguration(name, configuration: configurationName) }
            throw .unknownEntity(name)
        }
        return entity
    }

    /// The entity and its sub-entities at every depth, the entity first: whose objects a fetch
    /// of `name` returns.
    public func family(of name: String) -> [String] { family[name] ?? [] }

    /// Whether objects of `entity` are objects of `ancestor` (the same entity or a sub-entity).
    public func isKind(_ entity: String, of ancestor: String) -> Bool {
        entity == ancestor || (family[ancestor]?.contains(entity) ?? false)
    }

    /// The entity that declares `relationship` (`entity` itself, or the ancestor it inherits it from).
    public func declaringEntity(of relationship: String, in entity: String) -> String {
        declaringEntity["\(entity).\(relationship)"] ?? entity
    }

    /// How `relationship` of `entity` is stored and synced.
    public func storage(of relationship: RelationshipDescription, in entity: EntityDescription) -> RelationshipStorage {
        guard relationship.isToMany else { return .toOneColumn }
        // An inherited relationship is stored as its declaring entity's: one pair table for all.
        let owner = declaringEntity["\(entity.name).\(relationship.name)"] ?? entity.name
        if let inverseName = relationship.inverse,
           let destination = self.entity(relationship.destination),
           let inverse = destination.relationship(inverseName) {
            if !inverse.isToMany { return .derivedFromInverse(inverseName) }
            // Many-to-many: one pair table, owned by the side whose (entity, name) sorts first.
            let inverseOwner = declaringEntity["\(relationship.destination).\(inverseName)"] ?? relationship.destination
            let ownerIsSelf = (owner, relationship.name) <= (inverseOwner, inverseName)
            return ownerIsSelf
                ? .pairTable(owner: owner, relationship: relationship.name, selfIsSource: true)
                : .pairTable(owner: inverseOwner, relationship: inverseName, selfIsSource: false)
        }
        return .pairTable(owner: owner, relationship: relationship.name, selfIsSource: true)
    }

    /// The merge slots of an entity: each attribute outside a group, each merge group, and each
    /// to-one relationship carries one stamp and writer.
    public func slots(of entity: EntityDescription) -> [MergeSlot] {
        var slots: [MergeSlot] = []
        var grouped: Set<String> = []
        for group in entity.mergeGroups {
            grouped.formUnion(group)
            slots.append(MergeSlot(name: "g_" + group.joined(separator: "_"), attributes: group, relationship: nil))
        }
        for attribute in entity.attributes where !grouped.contains(attribute.name) {
            slots.append(MergeSlot(name: attribute.name, attributes: [attribute.name], relationship: nil))
        }
        for relationship in entity.relationships where !relationship.isToMany {
            slots.append(MergeSlot(name: relationship.name, attributes: [], relationship: relationship.name))
        }
        return slots
    }

    // MARK: Resolution

    private struct Resolution {
        var entities: [EntityDescription]
        var family: [String: [String]]
        var declaringEntity: [String: String]
        let index: [String: Int]

        func entity(_ name: String) -> EntityDescription? { index[name].map { entities[$0] } }
        func isKind(_ entity: String, of ancestor: String) -> Bool { entity == ancestor || (family[ancestor]?.contains(entity) ?? false) }
    }

    /// Gives every entity its parent's properties (parents first), sets transient properties
    /// apart and records who declares each relationship. A sub-entity may repeat an inherited
    /// property only unchanged (a resolved model's entities declare the same model again).
    private static func resolve(_ declared: [EntityDescription], index: [String: Int]) throws(ModelError) -> Resolution {
        for entity in declared {
            guard let parent = entity.parent else { continue }
            guard index[parent] != nil else { throw .unknownParent(entity.name, parent) }
            var seen: Set<String> = [entity.name]
            var ancestor: String? = parent
            while let current = ancestor {
                guard seen.insert(current).inserted else { throw .inheritanceCycle(entity.name) }
                ancestor = declared[index[current]!].parent
            }
        }
        var resolved: [EntityDescription?] = Array(repeating: nil, count: declared.count)
        var declaring: [String: String] = [:]
        func resolveEntity(_ offset: Int) throws(ModelError) -> EntityDescription {
            if let done = resolved[offset] { return done }
            let own = declared[offset]
            var entity = own
            entity.attributes = []
            entity.relationships = []
            entity.transientAttributes = []
            entity.transientRelationships = []
            entity.mergeGroups = []
            entity.uniquenessConstraints = []
            var inherited: EntityDescription?
            if let parent = own.parent { inherited = try resolveEntity(index[parent]!) }
            if let inherited {
                entity.attributes = inherited.attributes
                entity.relationships = inherited.relationships
                entity.transientAttributes = inherited.transientAttributes
                entity.transientRelationships = inherited.transientRelationships
                entity.mergeGroups = inherited.mergeGroups
                entity.uniquenessConstraints = inherited.uniquenessConstraints
                for relationship in inherited.relationships + inherited.transientRelationships {
                    declaring["\(own.name).\(relationship.name)"] = declaring["\(inherited.name).\(relationship.name)"] ?? inherited.name
                }
            }
            for var attribute in own.attributes + own.transientAttributes {
                if own.transientAttributes.contains(attribute) { attribute.isTransient = true }
                if let same = (entity.attributes + entity.transientAttributes).first(where: { $0.name == attribute.name }) {
                    guard same == attribute, inherited != nil else { throw .duplicate("property \(own.name).\(attribute.name)") }
                    continue
                }
                if attribute.isKeptInMemoryOnly { entity.transientAttributes.append(attribute) } else { entity.attributes.append(attribute) }
            }
            for var relationship in own.relationships + own.transientRelationships {
                if own.transientRelationships.contains(relationship) { relationship.isTransient = true }
                if let same = (entity.relationships + entity.transientRelationships).first(where: { $0.name == relationship.name }) {
                    guard same == relationship, inherited != nil else { throw .duplicate("property \(own.name).\(relationship.name)") }
                    continue
                }
                declaring["\(own.name).\(relationship.name)"] = own.name
                if relationship.isTransient { entity.transientRelationships.append(relationship) } else { entity.relationships.append(relationship) }
            }
            for group in own.mergeGroups where !entity.mergeGroups.contains(group) { entity.mergeGroups.append(group) }
            for constraint in own.uniquenessConstraints where !entity.uniquenessConstraints.contains(constraint) {
                entity.uniquenessConstraints.append(constraint)
            }
            resolved[offset] = entity
            return entity
        }
        var entities: [EntityDescription] = []
        for offset in declared.indices { entities.append(try resolveEntity(offset)) }
        var family: [String: [String]] = [:]
        for entity in entities {
            family[entity.name, default: []].insert(entity.name, at: 0)
            var ancestor = entity.parent
            while let current = ancestor {
                family[current, default: []].append(entity.name)
                ancestor = entities[index[current]!].parent
            }
        }
        for name in family.keys { family[name] = [name] + family[name]!.filter { $0 != name }.sorted() }
        return Resolution(entities: entities, family: family, declaringEntity: declaring, index: index)
    }

    // MARK: Validation

    private static func validate(_ entity: EntityDescription, model: Resolution, index: [String: Int]) throws(ModelError) {
        var names: Set<String> = []
        for attribute in entity.attributes + entity.transientAttributes {
            let path = "\(entity.name).\(attribute.name)"
            guard Identifier.isValid(attribute.name) else { throw .invalidName("attribute", path) }
            guard names.insert(attribute.name).inserted else { throw .duplicate("property \(path)") }
            if attribute.type == .undefined, !attribute.isTransient {
                throw .invalidRule(path, "only a transient attribute may be of type undefined")
            }
            if let derivation = attribute.derivation { try validate(derivation, of: attribute, in: entity, path: path, model: model) }
            if let value = attribute.defaultValue {
                do { try attribute.validateKind(value, entity: entity.name) } catch { throw .invalidDefault(path, expected: attribute.type) }
            }
            try validateRules(of: attribute, path: path)
        }
        for relationship in entity.relationships + entity.transientRelationships {
            let path = "\(entity.name).\(relationship.name)"
            guard Identifier.isValid(relationship.name) else { throw .invalidName("relationship", path) }
            guard names.insert(relationship.name).inserted else { throw .duplicate("property \(path)") }
            guard let destination = model.entity(relationship.destination) else {
                throw .unknownDestination(path, relationship.destination)
            }
            guard relationship.minCount >= 0, relationship.maxCount >= 0,
                  relationship.maxCount == 0 || relationship.minCount <= relationship.maxCount else {
                throw .invalidRule(path, "its minimum count \(relationship.minCount) and maximum count \(relationship.maxCount) admit no number of objects")
            }
            if let inverseName = relationship.inverse {
                let inverse = destination.relationship(inverseName) ?? destination.transientRelationships.first { $0.name == inverseName }
                guard let inverse, model.isKind(entity.name, of: inverse.destination), inverse.inverse == relationship.name else {
                    throw .inverseMismatch(path, "\(destination.name).\(inverseName)")
                }
            }
        }
        for constraint in entity.uniquenessConstraints {
            guard !constraint.isEmpty else { throw .invalidRule(entity.name, "an empty uniqueness constraint") }
            for member in constraint {
                let toOne = entity.relationship(member).map { !$0.isToMany } ?? false
                guard entity.attribute(member) != nil || entity.transientAttribute(member)?.derivation != nil || toOne else {
                    throw .invalidRule(entity.name, "its uniqueness constraint (\(constraint.joined(separator: ", "))) names '\(member)', which is no stored attribute or to-one relationship of the entity")
                }
            }
        }
        var grouped: Set<String> = []
        for group in entity.mergeGroups {
            guard group.count >= 2 else { throw .invalidMergeGroup(entity.name, group) }
            for member in group {
                guard entity.attribute(member) != nil, grouped.insert(member).inserted else {
                    throw .invalidMergeGroup(entity.name, group)
                }
            }
        }
    }

    /// A derivation must be one Core Data accepts and reach what it names.
    private static func validate(_ derivation: String, of attribute: AttributeDescription, in entity: EntityDescription,
                                 path: String, model: Resolution) throws(ModelError) {
        do throws(DerivationExpressionError) {
            try DerivationExpression(parsing: derivation).check(for: attribute, in: entity, entityNamed: model.entity)
        } catch {
            throw .invalidRule(path, "the derivation '\(derivation)' \(error.reason)")
        }
    }

    /// Validation rules must fit their attribute: value bounds of its kind on numbers and dates,
    /// lengths on strings and binary data, a regular expression that compiles on strings.
    private static func validateRules(of attribute: AttributeDescription, path: String) throws(ModelError) {
        let rules = attribute.validation
        for (label, bound) in [("minimum", rules.minimum), ("maximum", rules.maximum)] {
            guard let bound else { continue }
            guard attribute.type.isNumeric || attribute.type == .date else {
                throw .invalidRule(path, "a \(attribute.type.rawValue) attribute has no \(label) value (use a length)")
            }
            guard attribute.type.accepts(bound) else { throw .invalidRule(path, "its \(label) value is not of type \(attribute.type.rawValue)") }
        }
        if let minimum = rules.minimum, let maximum = rules.maximum,
           AttributeDescription.compare(minimum, maximum) == .greater {
            throw .invalidRule(path, "its minimum value \(minimum) is above its maximum \(maximum)")
        }
        if rules.minLength != nil || rules.maxLength != nil {
            guard [.string, .binary, .transformable].contains(attribute.type) else {
                throw .invalidRule(path, "a \(attribute.type.rawValue) attribute has no length (use a minimum or maximum value)")
            }
            guard (rules.minLength ?? 0) >= 0, (rules.maxLength ?? 0) >= 0, (rules.minLength ?? 0) <= (rules.maxLength ?? Int.max) else {
                throw .invalidRule(path, "its length bounds \(rules.minLength ?? 0)…\(rules.maxLength.map(String.init) ?? "") admit no length")
            }
        }
        if let pattern = rules.pattern {
            guard attribute.type == .string else { throw .invalidRule(path, "only a string attribute takes a regular expression") }
            guard WholeStringPattern(pattern) != nil else {
                throw .invalidRule(path, "its regular expression \(pattern) does not compile")
            }
        }
    }
}

/// How a relationship's state is stored in a peer's store and carried in logs.
public enum RelationshipStorage: Sendable, Equatable {
    /// A to-one: a column holding the target's global ID, with its own stamp.
    case toOneColumn
    /// A to-many whose inverse is a to-one: read from the inverse column, never stored twice.
    case derivedFromInverse(String)
    /// A many-to-many, or a to-many without inverse: a set of (source, target) pairs, each added
    /// or removed by stamp, in the pair table of `owner.relationship` (the entity that declares
    /// the relationship, for its sub-entities too).
    case pairTable(owner: String, relationship: String, selfIsSource: Bool)
}

/// A unit of last-writer-wins merging within an object: one stamp and writer per slot.
public struct MergeSlot: Sendable, Equatable {
    /// Column-safe name of the slot.
    public let name: String
    public let attributes: [String]
    public let relationship: String?
}

/// Names the model and the cloud accept: ASCII letters, digits and `_`, not starting with a digit.
enum Identifier {
    static func isValid(_ name: String) -> Bool {
        guard let first = name.utf8.first, name.utf8.count <= 64 else { return false }
        guard first == UInt8(ascii: "_") || (first | 0x20) >= UInt8(ascii: "a") && (first | 0x20) <= UInt8(ascii: "z") else { return false }
        return name.utf8.allSatisfy { byte in
            byte == UInt8(ascii: "_") || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
                || ((byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z"))
        }
    }
}

/// Something the loader of a model file says about it: where (the file, and the line when
/// the reader knows it) and what. `level` is the log level it is shown at: `.info` for what
/// was read leniently or ignored, `.warning` for what is kept but not honoured.
public struct ModelNote: Sendable, Equatable, CustomStringConvertible {
    public var level: LogLevel
    public var file: String
    public var line: Int?
    /// The XML element the note is about (`attribute`, `entity`…), when there is one.
    public var element: String?
    public var message: String

    public init(_ level: LogLevel, file: String, line: Int? = nil, element: String? = nil, _ message: String) {
        self.level = level
        self.file = file
        self.line = line
        self.element = element
        self.message = message
    }

    /// `file:line: <element>: message`, as errors are written.
    public var description: String {
        var text = file
        if let line { text += ":\(line)" }
        if let element { text += ": <\(element)>" }
        return text + ": " + message
    }
}

/// A model that cannot be used, with what is wrong.
public enum ModelError: Error, CustomStringConvertible, Equatable, Sendable {
    case invalidName(String, String)
    case duplicate(String)
    case unknownEntity(String)
    case unknownProperty(entity: String, property: String)
    case unknownDestination(String, String)
    case inverseMismatch(String, String)
    case invalidDefault(String, expected: AttributeType)
    case invalidMergeGroup(String, [String])
    case unreadableFile(String, String)
    /// An entity names a parent the model does not have.
    case unknownParent(String, String)
    /// An entity is its own ancestor.
    case inheritanceCycle(String)
    /// A validation rule or count that does not fit its property.
    case invalidRule(String, String)
    /// An Xcode model file holds something this reader does not understand: the file, the
    /// line and the element, and why.
    case unsupportedElement(file: String, line: Int, element: String, reason: String)
    /// An abstract entity has no objects of its own.
    case abstractEntity(String)
    /// The model was restricted to a configuration that does not hold this entity.
    case entityOutsideConfiguration(String, configuration: String)

    public var description: String {
        switch self {
        case let .invalidName(kind, name): return "invalid \(kind) name '\(name)': use letters, digits and _ (at most 64)"
        case let .duplicate(what): return "duplicate \(what)"
        case let .unknownEntity(name): return "unknown entity '\(name)'"
        case let .unknownProperty(entity, property): return "entity \(entity) has no property '\(property)'"
        case let .unknownDestination(path, destination): return "relationship \(path) points to unknown entity '\(destination)'"
        case let .inverseMismatch(path, inverse): return "relationship \(path) and its inverse \(inverse) do not name each other"
        case let .invalidDefault(path, expected): return "default value of \(path) is not of type \(expected.rawValue)"
        case let .invalidMergeGroup(entity, group): return "merge group [\(group.joined(separator: ", "))] of \(entity) must name two or more attributes of the entity, each in one group only"
        case let .unreadableFile(path, reason): return "cannot read model file \(path): \(reason)"
        case let .unknownParent(entity, parent): return "entity \(entity) names unknown parent entity '\(parent)'"
        case let .inheritanceCycle(entity): return "entity \(entity) inherits from itself"
        case let .invalidRule(path, reason): return "\(path): \(reason)"
        case let .unsupportedElement(file, line, element, reason): return "\(file):\(line): <\(element)>: \(reason)"
        case let .abstractEntity(name): return "entity \(name) is abstract: insert one of its sub-entities"
        case let .entityOutsideConfiguration(name, configuration):
            return "entity \(name) is not in the configuration '\(configuration)' the store was opened with"
        }
    }
}

extension ObjectModel {
    /// What the model declares that Ubiquity keeps (in the model, its hash and its file) but
    /// does not honour yet, one sentence each: derived attributes, whose values are not
    /// computed, and so the uniqueness constraints that name one. A peer opening such a model
    /// logs each at level 1.
    public var unhonouredFeatures: [String] {
        var features: [String] = []
        for entity in declaredEntities {
            for constraint in entity.uniquenessConstraints
            where constraint.contains(where: { entity.transientAttribute($0)?.derivation != nil }) {
                features.append("\(entity.name): the uniqueness constraint (\(constraint.joined(separator: ", "))) names a derived attribute, which holds no value: it is never enforced")
            }
            for attribute in entity.attributes + entity.transientAttributes {
                guard let derivation = attribute.derivation else { continue }
                features.append("\(entity.name).\(attribute.name): the derived attribute (\(derivation)) is not computed: it is kept in memory only, never stored or synced, and reads as no value until the app sets one")
            }
        }
        return features
    }
}
