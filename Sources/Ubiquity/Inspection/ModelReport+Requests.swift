import UbiquityBase
import UbiquityCore

// The model's queries and configurations as `ubiq model show` prints them.
extension ObjectModel {
    /// `fetched property` lines of `entity` (declared there), indented under it.
    func fetchedPropertyLines(of entity: String) -> [String] {
        fetchedProperties.filter { $0.entity == entity }.map { "  \($0.name): fetched " + Self.requestText($0.request) }
    }

    /// The `fetch requests:` and `configurations:` sections, when the model has some.
    var requestAndConfigurationLines: [String] {
        var lines: [String] = []
        if !fetchRequestTemplates.isEmpty {
            lines.append("fetch requests:")
            for template in fetchRequestTemplates { lines.append("  \(template.name): " + Self.requestText(template)) }
        }
        if !configurations.isEmpty {
            lines.append("configurations:")
            for configuration in configurations {
                lines.append("  \(configuration.name): " + (configuration.entities.isEmpty ? "no entities" : configuration.entities.joined(separator: ", ")))
            }
        }
        return lines
    }

    /// The JSON fields `fetchRequests`, `fetchedProperties` and `configurations`, when there are some.
    var requestAndConfigurationFields: [String: JSONValue] {
        var fields: [String: JSONValue] = [:]
        if !fetchRequestTemplates.isEmpty { fields["fetchRequests"] = .array(fetchRequestTemplates.map { Self.requestJSON($0) }) }
        if !fetchedProperties.isEmpty {
            fields["fetchedProperties"] = .array(fetchedProperties.map { property in
                .object(["name": .string(property.name), "entity": .string(property.entity), "request": Self.requestJSON(property.request)])
            })
        }
        if !configurations.isEmpty {
            fields["configurations"] = .array(configurations.map { configuration in
                .object(["name": .string(configuration.name), "entities": .array(configuration.entities.map(JSONValue.string))])
            })
        }
        return fields
    }

    private static func requestText(_ template: FetchRequestTemplate) -> String {
        var text = template.entity
        if let predicate = template.predicate { text += " where \(predicate)" }
        if let limit = template.limit { text += ", limit \(limit)" }
        if !template.includesSubentities { text += ", no sub-entities" }
        let variables = template.predicate.map(FetchPredicate.variables) ?? []
        if !variables.isEmpty { text += ", variables " + variables.map { "$" + $0 }.joined(separator: ", ") }
        return text
    }

    private static func requestJSON(_ template: FetchRequestTemplate) -> JSONValue {
        .object([
            "name": .string(template.name), "entity": .string(template.entity),
            "predicate": template.predicate.map(JSONValue.string) ?? .null,
            "limit": template.limit.map { .int(Int64($0)) } ?? .null,
            "includesSubentities": .bool(template.includesSubentities),
            "variables": .array((template.predicate.map(FetchPredicate.variables) ?? []).map(JSONValue.string)),
        ])
    }
}
