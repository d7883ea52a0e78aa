/// A fetch request template or fetched property that cannot be made into a request.
public enum FetchTemplateError: Error, Equatable, CustomStringConvertible, Sendable {
    /// The model has no template of this name; `available` lists those it has.
    case unknownTemplate(String, available: [String])
    /// The template's predicate names `$variable` and no value was given for it.
    case missingVariable(template: String, variable: String)
    /// The template's predicate does not parse for its entity (with the parser's message).
    case invalidPredicate(template: String, message: String)
    /// The entity has no fetched property of this name; `available` lists those it has.
    case unknownFetchedProperty(entity: String, property: String, available: [String])

    public var description: String {
        switch self {
        case let .unknownTemplate(name, available):
            return "no fetch request template '\(name)' in the model (templates: \(available.isEmpty ? "none" : available.joined(separator: ", ")))"
        case let .missingVariable(template, variable):
            return "fetch request template '\(template)' needs a value for $\(variable)"
        case let .invalidPredicate(template, message):
            return "fetch request template '\(template)': \(message)"
        case let .unknownFetchedProperty(entity, property, available):
            return "entity \(entity) has no fetched property '\(property)' (fetched properties: \(available.isEmpty ? "none" : available.joined(separator: ", ")))"
        }
    }
}

extension ObjectModel {
    /// The request of the template `name` with each `$NAME` of its predicate replaced by
    /// `substitutionVariables[NAME]` (Core Data's `fetchRequestFromTemplate(withName:substitutionVariables:)`).
    /// Every variable the predicate names needs a value.
    public func fetchRequest(fromTemplate name: String, substitutionVariables: [String: SubstitutionValue] = [:]) throws(FetchTemplateError) -> FetchRequest {
        guard let template = fetchRequestTemplates.first(where: { $0.name == name }) else {
            throw .unknownTemplate(name, available: fetchRequestTemplates.map(\.name))
        }
        return try request(from: template, substitutionVariables: substitutionVariables)
    }

    /// The fetched property `name` of `object`'s entity (declared by it or an ancestor), as a
    /// request: `$FETCH_SOURCE` is the object (a to-one relationship compared with it matches
    /// the objects pointing at it). Core Data's `$FETCHED_PROPERTY` (the property's description,
    /// for its user info) has no value here: a predicate naming it is refused as a missing variable.
    public func fetchRequest(forFetchedProperty name: String, of object: GlobalID) throws(FetchTemplateError) -> FetchRequest {
        let lineage = entities.map(\.name).filter { isKind(object.entity, of: $0) }
        let candidates = fetchedProperties.filter { lineage.contains($0.entity) }
        guard let property = candidates.first(where: { $0.name == name }) else {
            throw .unknownFetchedProperty(entity: object.entity, property: name, available: candidates.map(\.name))
        }
        return try request(from: property.request, substitutionVariables: ["FETCH_SOURCE": .value(.string(object.description))])
    }

    private func request(from template: FetchRequestTemplate, substitutionVariables: [String: SubstitutionValue]) throws(FetchTemplateError) -> FetchRequest {
        var request = FetchRequest(entity: template.entity, limit: template.limit, includesSubentities: template.includesSubentities)
        guard let text = template.predicate else { return request }
        for variable in FetchPredicate.variables(in: text) where substitutionVariables[variable] == nil {
            throw .missingVariable(template: template.name, variable: variable)
        }
        do {
            let entity = try self.entity(named: template.entity)
            request.predicate = try FetchPredicate.parse(text, entity: entity, model: self, substitutionVariables: substitutionVariables)
        } catch let error as PredicateParseError {
            throw .invalidPredicate(template: template.name, message: error.description)
        } catch {
            throw .invalidPredicate(template: template.name, message: "\(error)")
        }
        return request
    }
}
