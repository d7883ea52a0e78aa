import Ubiquity

/// The readable one-line form of an object, shared by `fetch` and `dump`:
/// `Note/abc  title="Hello" pinned=false folder=Folder/trip tags=[Tag/a, Tag/b]`.
enum ObjectText {
    static func line(_ snapshot: ObjectSnapshot, entity: EntityDescription, store: PersistentStore) throws -> String {
        var fields: [String] = []
        for attribute in entity.attributes {
            fields.append("\(attribute.name)=\(text(snapshot.values[attribute.name] ?? nil))")
        }
        for relationship in entity.relationships {
            if relationship.isToMany {
                let targets = try store.targets(of: relationship.name, of: snapshot.id)
                fields.append("\(relationship.name)=[\(targets.map(\.description).joined(separator: ", "))]")
            } else {
                fields.append("\(relationship.name)=\((snapshot.toOne[relationship.name] ?? nil)?.description ?? "nil")")
            }
        }
        return "\(snapshot.id)  " + fields.joined(separator: " ")
    }

    /// Strings are quoted so that spaces and empty strings are visible.
    static func text(_ value: AttributeValue?) -> String {
        guard let value else { return "nil" }
        if case let .string(string) = value { return string.debugDescription }
        return value.description
    }
}
