// Relationship rules checked at save (Core Data's validation of relationships): a required
// to-one needs a live target, a to-many holds between its minimum and maximum count (one at
// least when required). Attribute values are checked as their records are made
// (`AttributeDescription.validate`, ObjectContextSave.swift).
extension ObjectContext {
    /// Refuses a to-one set (or a to-many member added) to an object the store never held and
    /// this save does not insert, naming the object, the relationship and the missing ID (the
    /// CLI refuses it too). A deleted target — by this save, or by another peer since the
    /// context read it — is allowed: the reference reads as absent, as Docs/SyncSemantics.md says.
    func validateTargets(doomed: Set<GlobalID>) throws {
        func exists(_ target: GlobalID) throws -> Bool {
            if doomed.contains(target) || insertedIDs.contains(target) { return true }
            return try store.isAlive(target) || store.isDeleted(target)
        }
        // Only objects with to-one changes are sorted: a large save of new objects has few.
        for object in registered.values.filter({ !$0.changedToOne.isEmpty }).sorted(by: { $0.id < $1.id }) where !doomed.contains(object.id) {
            for (name, target) in object.changedToOne.sorted(by: { $0.key < $1.key }) {
                if let target, try !exists(target) { throw StoreError.missingTarget(object: object.id, relationship: name, target: target) }
            }
        }
        for change in pairOrder where pendingPairs[change] == true && !doomed.contains(change.source) {
            if try !exists(change.target) { throw StoreError.missingTarget(object: change.source, relationship: change.relationship, target: change.target) }
            if try !exists(change.source) { throw StoreError.missingTarget(object: change.target, relationship: change.relationship, target: change.source) }
        }
    }

    /// Checks every object this save inserts or changes, and every object whose relationships
    /// it changes from the other side (a member added, moved or deleted). Throws the first
    /// `ValidationError`; models without count rules cost nothing.
    func validateRelationships(doomed: Set<GlobalID>) throws {
        let model = store.model
        guard model.entities.contains(where: { $0.relationships.contains(where: \.hasCountRules) }) else { return }
        var candidates = insertedIDs
        for object in registered.values where object.hasChanges {
            candidates.insert(object.id)
            for (name, target) in object.changedToOne {
                if let target { candidates.insert(target) }
                if let old = object.saved?.toOne[name] ?? nil { candidates.insert(old) }
            }
        }
        for change in pendingPairs.keys {
            candidates.insert(change.source)
            candidates.insert(change.target)
        }
        // Objects related to a deleted one lose it.
        for id in doomed {
            guard let object = registered[id] else { continue }
            for relationship in object.entity.relationships where relationship.inverse != nil {
                if relationship.isToMany {
                    for target in try targets(of: relationship, of: object, recordingRead: false) { candidates.insert(target) }
                } else if let target = object.changedToOne[relationship.name] ?? object.saved?.toOne[relationship.name] ?? nil {
                    candidates.insert(target)
                }
            }
        }
        for id in candidates.subtracting(doomed).sorted() {
            guard let entity = model.entity(id.entity), entity.relationships.contains(where: \.hasCountRules),
                  let object = try self.object(id) else { continue }
            for relationship in entity.relationships where relationship.hasCountRules {
                if relationship.isToMany {
                    let members = try targets(of: relationship, of: object, recordingRead: false).filter { !doomed.contains($0) }
                    try relationship.validate(memberCount: members.count, entity: entity.name)
                } else {
                    let target = try object.target(of: relationship.name)
                    try relationship.validate(hasTarget: target.map { !doomed.contains($0) } ?? false, entity: entity.name)
                }
            }
        }
    }
}
