import Ubiquity

extension UniquenessDuplicate {
    /// Every group of live objects in `store` that hold one constraint's values together (an
    /// object without a value for one of the properties collides with none, as at save).
    static func find(in store: PersistentStore, model: ObjectModel) throws -> [UniquenessDuplicate] {
        let constraints = Set(model.entities.flatMap { model.uniquenessConstraints(of: $0.name) })
        var found: [UniquenessDuplicate] = []
        for constraint in constraints.sorted(by: { $0.description < $1.description }) {
            var holders: [String: [String]] = [:]
            for object in try store.fetch(FetchRequest(entity: constraint.scope)) {
                guard let values = Self.values(of: object, constraint.properties) else { continue }
                holders[values, default: []].append(object.id.description)
            }
            for (values, objects) in holders.sorted(by: { $0.key < $1.key }) where objects.count > 1 {
                found.append(UniquenessDuplicate(constraint: constraint.description, properties: constraint.properties, values: values, objects: objects.sorted()))
            }
        }
        return found
    }

    /// The constrained values as one text, or `nil` when one is missing.
    private static func values(of object: ObjectSnapshot, _ properties: [String]) -> String? {
        var parts: [String] = []
        for property in properties {
            if let value = object.values[property] {
                guard let value else { return nil }
                parts.append(value.jsonValue.text())
            } else if let target = object.toOne[property] {
                guard let target else { return nil }
                parts.append(target.description)
            } else {
                return nil
            }
        }
        return parts.joined(separator: ", ")
    }
}
