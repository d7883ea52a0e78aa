// Fetch request templates, fetched properties and configurations: read after the entities, so
// each name they give is checked against the model, as Xcode's model compiler checks it.
extension XcodeModelReader {
    /// `<fetchRequest name=… entity=… predicateString=… fetchLimit=… includeSubentities=…/>`.
    mutating func fetchRequestTemplate(_ node: XMLElementNode, entities: Set<String>) throws(ModelError) -> FetchRequestTemplate {
        checkAttributes(node, known: Self.fetchRequestAttributes)
        let name = try required(node, "name")
        let entity = try required(node, "entity")
        guard entities.contains(entity) else { throw fail(node, "fetch request '\(name)' names an unknown entity '\(entity)'") }
        for child in node.children where child.name != "userInfo" {
            note(child, "unknown element in <fetchRequest name=\"\(name)\"> ignored")
        }
        let predicate = node.attribute("predicateString").flatMap { $0.isEmpty ? nil : $0 }
        let limit = try count(node, "fetchLimit")
        return FetchRequestTemplate(name: name, entity: entity, predicate: predicate, limit: limit > 0 ? limit : nil,
                                    includesSubentities: try flag(node, "includeSubentities") ?? true)
    }

    /// `<fetchedProperty name=…><fetchRequest …/></fetchedProperty>` of `entity`.
    mutating func fetchedProperty(_ node: XMLElementNode, of entity: String, entities: Set<String>) throws(ModelError) -> FetchedPropertyDescription {
        checkAttributes(node, known: Self.fetchedPropertyAttributes)
        let name = try required(node, "name")
        let requests = node.children.filter { $0.name == "fetchRequest" }
        guard requests.count == 1 else { throw fail(node, "fetched property \(entity).\(name) needs one <fetchRequest>, not \(requests.count)") }
        for child in node.children where child.name != "fetchRequest" && child.name != "userInfo" {
            note(child, "unknown element in <fetchedProperty name=\"\(name)\"> ignored")
        }
        return FetchedPropertyDescription(name: name, entity: entity, request: try fetchRequestTemplate(requests[0], entities: entities))
    }

    /// `<configuration name=…><memberEntity name=…/>…</configuration>`.
    mutating func configuration(_ node: XMLElementNode, entities: Set<String>) throws(ModelError) -> ModelConfiguration {
        checkAttributes(node, known: ["name", "usedWithCloudKit"])
        let name = try required(node, "name")
        var members: [String] = []
        for child in node.children {
            guard child.name == "memberEntity" else {
                if child.name != "userInfo" { note(child, "unknown element in <configuration name=\"\(name)\"> ignored") }
                continue
            }
            let member = try required(child, "name")
            guard entities.contains(member) else { throw fail(child, "configuration '\(name)' names an unknown entity '\(member)'") }
            if !members.contains(member) { members.append(member) }
        }
        return ModelConfiguration(name: name, entities: members)
    }

    // What Xcode writes on a template; those that change no result here (batch size, faulting,
    // result type) are read and ignored without a note.
    static let fetchRequestAttributes: Set<String> = [
        "name", "entity", "predicateString", "fetchLimit", "fetchBatchSize", "includeSubentities", "includePropertyValues",
        "includePendingChanges", "returnObjectsAsFaults", "returnDistinctResults", "resultType",
    ]
    static let fetchedPropertyAttributes: Set<String> = ["name", "optional", "syncable", "transient", "elementID", "renamingIdentifier", "versionHashModifier"]
}
