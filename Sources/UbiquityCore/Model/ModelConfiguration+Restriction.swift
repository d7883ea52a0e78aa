/// A configuration that cannot be used for a store, with the reason.
public enum ModelConfigurationError: Error, Equatable, CustomStringConvertible, Sendable {
    /// The model has no configuration of this name; `available` lists those it has.
    case unknownConfiguration(String, available: [String])
    /// A member entity's relationship points outside the configuration (Core Data forbids
    /// relationships across stores).
    case relationshipLeavesConfiguration(configuration: String, relationship: String, destination: String)
    /// A member entity's parent is not a member.
    case parentOutsideConfiguration(configuration: String, entity: String, parent: String)
    /// The member entities do not form a model on their own (the model's own check, in words).
    case invalidMembers(configuration: String, reason: String)

    public var description: String {
        switch self {
        case let .unknownConfiguration(name, available):
            return "no configuration '\(name)' in the model (configurations: \(available.isEmpty ? "none" : available.joined(separator: ", ")))"
        case let .relationshipLeavesConfiguration(configuration, relationship, destination):
            return "configuration '\(configuration)' cannot hold a store: \(relationship) points to \(destination), which is not in it (a relationship cannot cross stores)"
        case let .parentOutsideConfiguration(configuration, entity, parent):
            return "configuration '\(configuration)' cannot hold a store: the parent \(parent) of \(entity) is not in it"
        case let .invalidMembers(configuration, reason):
            return "configuration '\(configuration)' cannot hold a store: \(reason)"
        }
    }
}

extension ObjectModel {
    /// The model of a store opened with the configuration `name`: its member entities only, with
    /// the templates and fetched properties that fetch them. Its hash is that of those entities,
    /// so peers of one configuration share a model-version folder, and peers of another (or of
    /// the whole model) do not meet them. A member whose relationship or parent lies outside
    /// the configuration is refused.
    public func restricted(toConfiguration name: String) throws(ModelConfigurationError) -> ObjectModel {
        guard let configuration = configurations.first(where: { $0.name == name }) else {
            throw .unknownConfiguration(name, available: configurations.map(\.name))
        }
        let members = Set(configuration.entities)
        let kept = declaredEntities.filter { members.contains($0.name) }
        for entity in kept {
            if let parent = entity.parent, !members.contains(parent) {
                throw .parentOutsideConfiguration(configuration: name, entity: entity.name, parent: parent)
            }
            for relationship in entity.relationships + entity.transientRelationships where !members.contains(relationship.destination) {
                throw .relationshipLeavesConfiguration(configuration: name, relationship: "\(entity.name).\(relationship.name)", destination: relationship.destination)
            }
        }
        var model: ObjectModel
        do { model = try ObjectModel(name: self.name, entities: kept) } catch {
            throw .invalidMembers(configuration: name, reason: error.description)
        }
        model.notes = notes
        model.fetchRequestTemplates = fetchRequestTemplates.filter { members.contains($0.entity) }
        model.fetchedProperties = fetchedProperties.filter { members.contains($0.entity) && members.contains($0.request.entity) }
        model.configurations = [configuration]
        model.configurationName = name
        return model
    }
}
