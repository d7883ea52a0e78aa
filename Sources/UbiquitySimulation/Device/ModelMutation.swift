import Foundation
import Ubiquity

/// One random change over any model (`DEVICE mutate`), drawn from the runner's roll: an insert
/// of a concrete entity (sub-entities included) with values inside their rules, an update of
/// its attributes, a delete, or a change of one of its relationships (a to-one's target, a
/// to-many's member added or removed, an ordered one's member moved). Constrained attributes
/// take values from a shared pool and are written at insert only: two devices that update two
/// objects to one value keep both (Docs/SyncSemantics.md), which the fuzz leaves out. A
/// constrained to-one is an insert's value too, so the other side of it (a `Bed`'s `plants`
/// when `Plant`'s constraint names `bed`) is never changed: that would update the members'
/// constrained values.
struct ModelMutation {
    let model: ObjectModel
    var random: SeededGenerator

    init(model: ObjectModel, roll: UInt64) {
        self.model = model
        random = SeededGenerator(seed: roll)
    }

    /// The entities a mutation can insert (abstract ones have no objects of their own).
    var concreteEntities: [EntityDescription] { model.entities.filter { !$0.isAbstract } }

    /// Changes the object `key` of a random entity in `context` (unsaved).
    mutating func apply(key: String, in context: ObjectContext) throws {
        let entities = concreteEntities
        guard !entities.isEmpty else { return }
        let entity = entities[Int.random(in: 0..<entities.count, using: &random)]
        let id = try GlobalID(entity: entity.name, key: key)
        guard let object = try context.object(id) else { return try insert(entity, key: key, in: context) }
        switch Int.random(in: 0..<10, using: &random) {
        case 0, 1: context.delete(object)
        case 2...5: try update(object, of: entity)
        default:
            if entity.relationships.isEmpty { try update(object, of: entity) } else { try relate(object, of: entity, in: context) }
        }
    }

    /// Inserts, for every concrete entity under a constraint, one object per pooled value, its
    /// keys made from `prefix`: what several devices do at one instant to collide on purpose.
    mutating func insertPooled(prefix: String, in context: ObjectContext) throws {
        for entity in concreteEntities where !model.uniquenessConstraints(of: entity.name).isEmpty {
            for index in 0..<ModelValues.poolSize {
                let key = "\(prefix)-\(entity.name)-\(index)"
                guard try context.object(GlobalID(entity: entity.name, key: key)) == nil else { continue }
                try insert(entity, key: key, in: context, pool: index)
            }
        }
    }

    /// The properties of `entity` some uniqueness constraint names.
    private func constrained(_ entity: EntityDescription) -> Set<String> {
        Set(model.uniquenessConstraints(of: entity.name).flatMap(\.properties))
    }

    /// Whether changing `relationship` would change the constrained to-one of its targets.
    private func movesConstrainedTargets(_ relationship: RelationshipDescription) -> Bool {
        guard let inverse = relationship.inverse else { return false }
        return model.entities.contains { $0.relationship(inverse)?.destination != nil && constrained($0).contains(inverse) }
    }

    private mutating func insert(_ entity: EntityDescription, key: String, in context: ObjectContext, pool: Int? = nil) throws {
        let object = try context.insert(entity.name, key: key)
        let constrained = constrained(entity)
        for attribute in entity.attributes where !attribute.isKeptInMemoryOnly {
            let value = constrained.contains(attribute.name)
                ? ModelValues.pooled(attribute, of: entity.name, index: pool ?? Int.random(in: 0..<ModelValues.poolSize, using: &random))
                : ModelValues.draw(attribute, of: entity.name, using: &random)
            if let value { try object.setValue(value, for: attribute.name) }
        }
        for relationship in entity.relationships where !relationship.isTransient && !movesConstrainedTargets(relationship) {
            let wanted = relationship.isToMany ? max(relationship.minCount, relationship.isOptional ? 0 : 1) : (relationship.isOptional ? 0 : 1)
            let count = max(wanted, Int.random(in: 0...1, using: &random))
            for target in try targets(of: relationship, in: context, count: count) {
                if relationship.isToMany { try object.add(target, to: relationship.name) } else { try object.setTarget(target, of: relationship.name) }
            }
        }
    }

    private mutating func update(_ object: ManagedObject, of entity: EntityDescription) throws {
        let constrained = constrained(entity)
        let attributes = entity.attributes.filter { !$0.isKeptInMemoryOnly && !constrained.contains($0.name) }
        guard !attributes.isEmpty else { return }
        for _ in 0..<Int.random(in: 1...min(2, attributes.count), using: &random) {
            let attribute = attributes[Int.random(in: 0..<attributes.count, using: &random)]
            try object.setValue(ModelValues.draw(attribute, of: entity.name, using: &random), for: attribute.name)
        }
    }

    private mutating func relate(_ object: ManagedObject, of entity: EntityDescription, in context: ObjectContext) throws {
        let relationships = entity.relationships.filter { !$0.isTransient && !constrained(entity).contains($0.name) && !movesConstrainedTargets($0) }
        guard !relationships.isEmpty else { return }
        let relationship = relationships[Int.random(in: 0..<relationships.count, using: &random)]
        let name = relationship.name
        guard relationship.isToMany else {
            let target = try targets(of: relationship, in: context, count: 1).first
            // A required to-one keeps its target when there is no other.
            if target != nil || relationship.isOptional { try object.setTarget(target, of: name) }
            return
        }
        let members = try object.targets(of: name)
        let minimum = max(relationship.minCount, relationship.isOptional ? 0 : 1)
        let full = relationship.maxCount > 0 && members.count >= relationship.maxCount
        switch Int.random(in: 0..<3, using: &random) {
        case 0 where members.count > minimum:
            try object.remove(members[Int.random(in: 0..<members.count, using: &random)], from: name)
        case 1 where relationship.isOrdered && members.count > 1:
            try object.move(members[Int.random(in: 0..<members.count, using: &random)], in: name, to: Int.random(in: 0..<members.count, using: &random))
        default:
            guard !full, let target = try targets(of: relationship, in: context, count: 1).first, !members.contains(target) else { return }
            if relationship.isOrdered {
                try object.insert(target, into: name, at: Int.random(in: 0...members.count, using: &random))
            } else {
                try object.add(target, to: name)
            }
        }
    }

    /// Up to `count` live objects the relationship may point at (its destination and its sub-entities).
    private mutating func targets(of relationship: RelationshipDescription, in context: ObjectContext, count: Int) throws -> [GlobalID] {
        guard count > 0 else { return [] }
        var candidates = try context.fetch(FetchRequest(entity: relationship.destination)).map(\.id)
        candidates.sort()
        var chosen: [GlobalID] = []
        while chosen.count < count, !candidates.isEmpty {
            chosen.append(candidates.remove(at: Int.random(in: 0..<candidates.count, using: &random)))
        }
        return chosen
    }
}
