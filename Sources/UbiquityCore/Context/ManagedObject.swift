/// An object as one context sees it: its saved state plus the context's unsaved changes.
///
/// Owned by its `ObjectContext` and used on that context's thread only. Reading an unknown
/// property gives `nil`; setting one is recorded and makes the next `save()` throw.
public final class ManagedObject {
    public let id: GlobalID
    public let entity: EntityDescription
    unowned let context: ObjectContext
    /// The state last read from the store; `nil` for an object inserted in this context.
    var saved: ObjectSnapshot?
    /// Unsaved attribute values: by index of the entity's attributes for a new object, by name
    /// for a read one. Used on the context's thread only and never across a call that reaches
    /// it again, so Swift's run-time check of exclusive access (two per value set) is left out.
    @exclusivity(unchecked) var changedValues: PendingValues
    var changedToOne: [String: GlobalID?] = [:]
    /// Transient attributes' values: kept here only, never saved.
    var transientValues: [String: AttributeValue?] = [:]

    /// `layout`: the names of `entity.attributes`, for a new object (`saved` is `nil`), whose
    /// values are then held by index.
    init(id: GlobalID, entity: EntityDescription, context: ObjectContext, saved: ObjectSnapshot?, layout: AttributeLayout? = nil) {
        self.id = id
        self.entity = entity
        self.context = context
        self.saved = saved
        changedValues = PendingValues(layout: saved == nil ? layout : nil)
    }

    /// Inserted in this context and not saved yet.
    public var isInserted: Bool { context.insertedIDs.contains(id) }
    /// Marked for deletion in this context.
    public var isDeleted: Bool { context.deletedIDs.contains(id) }
    /// Holds unsaved attribute or to-one changes.
    public var hasChanges: Bool { !changedValues.isEmpty || !changedToOne.isEmpty }

    /// An attribute's current value in this context. Setting through the subscript cannot
    /// throw (Swift's setters do not), so a wrong type or an unknown name set here is
    /// recorded and thrown by the next `save()`; `set(_:_:)` and `setValue(_:for:)` throw at the call.
    public subscript(_ attribute: String) -> AttributeValue? {
        get { (try? value(for: attribute)) ?? nil }
        set {
            do { try setValue(newValue, for: attribute) } catch { context.deferredErrors.append(error) }
        }
    }

    public func value(for attribute: String) throws -> AttributeValue? {
        guard let description = entity.attribute(attribute) else {
            guard let transient = entity.transientAttribute(attribute) else {
                throw ModelError.unknownProperty(entity: entity.name, property: attribute)
            }
            if let value = transientValues[attribute] { return value }
            return transient.defaultValue
        }
        if let changed = changedValues[attribute] { return changed }
        if let saved { return saved.values[attribute] ?? nil }
        return description.defaultValue
    }

    /// Sets an attribute; the value must be of the attribute's kind (ranges and the model's
    /// validation rules are checked at save). A transient attribute's value stays in this object.
    public func setValue(_ value: AttributeValue?, for attribute: String) throws {
        // A stored attribute is checked where it lies in the entity (no copy of its description).
        if let index = entity.attributes.firstIndex(where: { $0.name == attribute }), !entity.attributes[index].isTransient {
            if let value, !entity.attributes[index].type.accepts(value) {
                throw ValidationError.wrongType(entity: entity.name, property: attribute, expected: entity.attributes[index].type, found: value.type)
            }
            // A new object's values lie by the attribute's index: no name is hashed.
            if changedValues.layout != nil { changedValues.set(.some(value), at: index) } else { changedValues[attribute] = .some(value) }
            return
        }
        guard let description = entity.attribute(attribute) ?? entity.transientAttribute(attribute) else {
            throw ModelError.unknownProperty(entity: entity.name, property: attribute)
        }
        if let value, !description.type.accepts(value) {
            throw ValidationError.wrongType(entity: entity.name, property: attribute, expected: description.type, found: value.type)
        }
        if description.isKeptInMemoryOnly {
            transientValues[attribute] = .some(value)
        } else {
            changedValues[attribute] = .some(value)
        }
    }

    /// Sets an attribute from a Swift value (`"Groceries"`, `42`, `true`, a `Date`…; `nil`
    /// clears it). A value the attribute cannot hold — another type, or an integer out of an
    /// Integer 16/32 attribute's range — or an unknown name throws here, not at `save()`.
    public func set(_ attribute: String, _ value: (any AttributeValueConvertible)?) throws {
        let converted = value?.attributeValue
        if let converted, let description = entity.attribute(attribute) ?? entity.transientAttribute(attribute),
           description.type.accepts(converted), let range = description.type.integerRange,
           case let .integer(number) = converted, !range.contains(number) {
            throw ValidationError.outOfRange(entity: entity.name, property: attribute, type: description.type, value: number)
        }
        try setValue(converted, for: attribute)
    }

    /// The target of a to-one relationship (`nil` if empty or its target is deleted).
    public func target(of relationship: String) throws -> GlobalID? {
        let description = try self.relationship(relationship, toMany: false)
        let target: GlobalID? = changedToOne[description.name] ?? saved?.toOne[description.name] ?? nil
        guard let target, !context.deletedIDs.contains(target) else { return nil }
        return target
    }

    /// Sets a to-one relationship. With a to-one inverse (one-to-one) both sides are kept in step.
    public func setTarget(_ target: GlobalID?, of relationship: String) throws {
        let description = try self.relationship(relationship, toMany: false)
        if let target, !context.store.model.isKind(target.entity, of: description.destination) {
            throw RelationshipError.wrongDestination(entity: entity.name, relationship: relationship, destination: description.destination, target: target)
        }
        let previous = try self.target(of: relationship)
        changedToOne[description.name] = .some(target)
        if let inverseName = description.inverse, let inverse = context.store.model.entity(description.destination)?.relationship(inverseName), !inverse.isToMany {
            if let previous, previous != target, let old = try context.object(previous), try old.target(of: inverseName) == id {
                old.changedToOne[inverseName] = .some(nil)
            }
            if let target, let new = try context.object(target) { new.changedToOne[inverseName] = .some(id) }
        }
        // The to-one side of an ordered to-many: a new member goes last, as Core Data appends it.
        if let inverseName = description.inverse, let target, target != previous,
           let inverse = context.store.model.entity(description.destination)?.relationship(inverseName), inverse.isToMany, inverse.isOrdered,
           let owner = try context.object(target) {
            try context.place(id, in: inverse, of: owner, at: nil)
        }
    }

    /// The live targets of a to-many relationship, with this context's unsaved changes: an
    /// ordered relationship's in their order, any other's sorted by global ID.
    public func targets(of relationship: String) throws -> [GlobalID] {
        let description = try self.relationship(relationship, toMany: true)
        return try context.targets(of: description, of: self)
    }

    /// Adds `target` to a to-many relationship; in an ordered one it goes last (a member
    /// already there keeps its place).
    public func add(_ target: GlobalID, to relationship: String) throws {
        let description = try self.relationship(relationship, toMany: true)
        let isMember = description.isOrdered ? try targets(of: relationship).contains(target) : false
        try context.changeToMany(relationship, of: self, target: target, present: true)
        if description.isOrdered, !isMember { try context.place(target, in: description, of: self, at: nil) }
    }

    /// Adds `target` to an ordered to-many relationship at `index` (0…count), or moves it
    /// there when it is a member already. Other members keep their keys: concurrent inserts
    /// and moves on other peers merge (Docs/SyncSemantics.md, "Ordered to-many").
    public func insert(_ target: GlobalID, into relationship: String, at index: Int) throws {
        let description = try orderedRelationship(relationship)
        let members = try targets(of: relationship)
        let others = members.filter { $0 != target }.count
        // Checked before membership changes, so a refused insert leaves the context as it was.
        guard (0...others).contains(index) else {
            throw RelationshipError.indexOutOfRange(index: index, upperBound: others, relationship: relationship, object: id)
        }
        if !members.contains(target) {
            try context.changeToMany(relationship, of: self, target: target, present: true)
        }
        try context.place(target, in: description, of: self, at: index)
    }

    /// Moves a member of an ordered to-many relationship to `index` (0…count−1): only its
    /// position is written, so a concurrent removal elsewhere still removes it.
    public func move(_ target: GlobalID, in relationship: String, to index: Int) throws {
        let description = try orderedRelationship(relationship)
        let members = try targets(of: relationship)
        guard members.contains(target) else {
            throw RelationshipError.notAMember(target, relationship: relationship, object: id)
        }
        guard (0..<members.count).contains(index) else {
            throw RelationshipError.indexOutOfRange(index: index, upperBound: members.count - 1, relationship: relationship, object: id)
        }
        try context.place(target, in: description, of: self, at: index)
    }

    private func orderedRelationship(_ name: String) throws -> RelationshipDescription {
        let description = try relationship(name, toMany: true)
        guard description.isOrdered else { throw RelationshipError.notOrdered(entity: entity.name, relationship: name) }
        return description
    }

    /// Removes `target` from a to-many relationship.
    public func remove(_ target: GlobalID, from relationship: String) throws {
        try context.changeToMany(relationship, of: self, target: target, present: false)
    }

    func relationship(_ name: String, toMany: Bool) throws -> RelationshipDescription {
        guard let description = entity.relationship(name) else {
            throw ModelError.unknownProperty(entity: entity.name, property: name)
        }
        guard description.isToMany == toMany else {
            throw RelationshipError.wrongKind(entity: entity.name, relationship: name, isToMany: description.isToMany)
        }
        return description
    }
}
