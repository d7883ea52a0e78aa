import Crypto
import Foundation

/// A validated object model: entities with attributes, relationships and merge groups.
///
/// Validation resolves every relationship's storage (`RelationshipStorage`) and every entity's
/// merge slots once, so the store and the sync code never re-derive them.
public struct ObjectModel: Sendable, Equatable {
    public let name: String
    public let entities: [EntityDescription]
    /// Filename-safe base64 (RFC 4648 §5, unpadded) of the SHA-256 of `canonicalDescription`.
    public let hash: String
    private let entityIndex: [String: Int]

    public init(name: String, entities: [EntityDescription]) throws(ModelError) {
        self.name = name
        self.entities = entities
        var index: [String: Int] = [:]
        for (offset, entity) in entities.enumerated() {
            guard Identifier.isValid(entity.name) else { throw .invalidName("entity", entity.name) }
            guard index.updateValue(offset, forKey: entity.name) == nil else { throw .duplicate("entity \(entity.name)") }
        }
        self.entityIndex = index
        for entity in entities { try Self.validate(entity, in: entities, index: index) }
        let digest = SHA256.hash(data: Array(Self.canonicalDescription(of: entities).utf8))
        self.hash = Data(digest).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    public func entity(_ name: String) -> EntityDescription? { entityIndex[name].map { entities[$0] } }

    public func entity(named name: String) throws(ModelError) -> EntityDescription {
        guard let entity = entity(name) else { throw .unknownEntity(name) }
        return entity
    }

    /// How `relationship` of `entity` is stored and synced.
    public func storage(of relationship: RelationshipDescription, in entity: EntityDescription) -> RelationshipStorage {
        guard relationship.isToMany else { return .toOneColumn }
        if let inverseName = relationship.inverse,
           let destination = self.entity(relationship.destination),
           let inverse = destination.relationship(inverseName) {
            if !inverse.isToMany { return .derivedFromInverse(inverseName) }
            // Many-to-many: one pair table, owned by the side whose (entity, name) sorts first.
            let ownerIsSelf = (entity.name, relationship.name) <= (relationship.destination, inverseName)
            return ownerIsSelf
                ? .pairTable(owner: entity.name, relationship: relationship.name, selfIsSource: true)
                : .pairTable(owner: relationship.destination, relationship: inverseName, selfIsSource: false)
        }
        return .pairTable(owner: entity.name, relationship: relationship.name, selfIsSource: true)
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

    private static func validate(_ entity: EntityDescription, in entities: [EntityDescription], index: [String: Int]) throws(ModelError) {
        var names: Set<String> = []
        for attribute in entity.attributes {
            guard Identifier.isValid(attribute.name) else { throw .invalidName("attribute", "\(entity.name).\(attribute.name)") }
            guard names.insert(attribute.name).inserted else { throw .duplicate("property \(entity.name).\(attribute.name)") }
            if let value = attribute.defaultValue, value.type != attribute.type {
                throw .invalidDefault("\(entity.name).\(attribute.name)", expected: attribute.type)
            }
        }
        for relationship in entity.relationships {
            let path = "\(entity.name).\(relationship.name)"
            guard Identifier.isValid(relationship.name) else { throw .invalidName("relationship", path) }
            guard names.insert(relationship.name).inserted else { throw .duplicate("property \(path)") }
            guard let destinationIndex = index[relationship.destination] else {
                throw .unknownDestination(path, relationship.destination)
            }
            if let inverseName = relationship.inverse {
                let destination = entities[destinationIndex]
                guard let inverse = destination.relationship(inverseName),
                      inverse.destination == entity.name, inverse.inverse == relationship.name else {
                    throw .inverseMismatch(path, "\(destination.name).\(inverseName)")
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

    /// The text whose SHA-256 is the model hash: every entity, attribute (name, type, optional),
    /// relationship (name, destination, inverse, cardinality) and merge group, sorted. Default
    /// values and delete rules do not change what a log means, so they are left out (as Apple did).
    public static func canonicalDescription(of entities: [EntityDescription]) -> String {
        var lines: [String] = []
        for entity in entities.sorted(by: { $0.name < $1.name }) {
            lines.append("entity \(entity.name)")
            for attribute in entity.attributes.sorted(by: { $0.name < $1.name }) {
                lines.append("  attribute \(attribute.name) \(attribute.type.rawValue)\(attribute.isOptional ? " optional" : "")")
            }
            for relationship in entity.relationships.sorted(by: { $0.name < $1.name }) {
                lines.append("  relationship \(relationship.name) \(relationship.isToMany ? "to-many" : "to-one") \(relationship.destination) inverse \(relationship.inverse ?? "-")")
            }
            for group in entity.mergeGroups.map({ $0.sorted() }).sorted(by: { $0.joined(separator: ",") < $1.joined(separator: ",") }) {
                lines.append("  group \(group.joined(separator: ","))")
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }
}

/// How a relationship's state is stored in a peer's store and carried in logs.
public enum RelationshipStorage: Sendable, Equatable {
    /// A to-one: a column holding the target's global ID, with its own stamp.
    case toOneColumn
    /// A to-many whose inverse is a to-one: read from the inverse column, never stored twice.
    case derivedFromInverse(String)
    /// A many-to-many, or a to-many without inverse: a set of (source, target) pairs, each added
    /// or removed by stamp, in the pair table of `owner.relationship`.
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
        }
    }
}
