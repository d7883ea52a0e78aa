/// What a context assumes it read of one property (`ObjectContext.object(_:asRead:)`).
public enum ReadValue: Sendable, Equatable {
    /// An attribute's value (`nil`: absent).
    case attribute(AttributeValue?)
    /// A to-one relationship's target (`nil`: none).
    case target(GlobalID?)
}

// A read that something overtook, stated outright: how a tool (`ubiq update --expect`) reaches
// the merge policies without an import landing between a read and a save.
extension ObjectContext {
    /// The object with `id` as this context would have read it while its properties held
    /// `expected`. When the store holds other values for any of them now, the context's
    /// snapshot is that earlier read (the expected values, the store's for the rest, an earlier
    /// version), so a change or delete saved through it conflicts and `mergePolicy` decides, as
    /// after a read an import overtook. When the store holds them, this is `object(_:)`.
    /// `nil` when the object is not alive; an object this context already read keeps its read.
    public func object(_ id: GlobalID, asRead expected: [String: ReadValue]) throws -> ManagedObject? {
        if let object = registered[id] { return object.isDeleted ? nil : object }
        guard let current = try store.snapshot(of: id) else { return nil }
        let entity = try store.model.entity(named: id.entity)
        var values = current.values
        var toOne = current.toOne
        for (name, value) in expected.sorted(by: { $0.key < $1.key }) {
            switch value {
            case let .attribute(attributeValue):
                guard entity.attribute(name) != nil else { throw ModelError.unknownProperty(entity: entity.name, property: name) }
                values[name] = .some(attributeValue)
            case let .target(target):
                guard let relationship = entity.relationship(name), !relationship.isToMany else {
                    throw ModelError.unknownProperty(entity: entity.name, property: name)
                }
                toOne[name] = .some(target)
            }
        }
        let overtaken = values != current.values || toOne != current.toOne
        // Versions are only compared for equality: any other number is "read before the last change".
        let snapshot = overtaken ? ObjectSnapshot(id: id, values: values, toOne: toOne, version: current.version - 1) : current
        let object = ManagedObject(id: id, entity: entity, context: self, saved: snapshot)
        registered[id] = object
        return object
    }
}
