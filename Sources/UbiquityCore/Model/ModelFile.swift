import Foundation
import UbiquityBase
import UbiquityPlist

/// Reading and writing a model as a property list, so the CLI works with any model.
///
/// Shape: `{format: 1, name, entities: [{name, attributes: [{name, type, optional, default?}],
/// relationships: [{name, destination, inverse?, toMany, deleteRule}], mergeGroups: [[name]]}]}`.
extension ObjectModel {
    public var plistValue: PlistValue {
        .dictionary([
            "format": .integer(1),
            "name": .string(name),
            "entities": .array(entities.map { entity in
                .dictionary([
                    "name": .string(entity.name),
                    "attributes": .array(entity.attributes.map { attribute in
                        var fields: [String: PlistValue] = [
                            "name": .string(attribute.name),
                            "type": .string(attribute.type.rawValue),
                            "optional": .boolean(attribute.isOptional),
                        ]
                        if let value = attribute.defaultValue { fields["default"] = value.plistValue }
                        return .dictionary(fields)
                    }),
                    "relationships": .array(entity.relationships.map { relationship in
                        var fields: [String: PlistValue] = [
                            "name": .string(relationship.name),
                            "destination": .string(relationship.destination),
                            "toMany": .boolean(relationship.isToMany),
                            "deleteRule": .string(relationship.deleteRule.rawValue),
                        ]
                        if let inverse = relationship.inverse { fields["inverse"] = .string(inverse) }
                        return .dictionary(fields)
                    }),
                    "mergeGroups": .array(entity.mergeGroups.map { .array($0.map(PlistValue.string)) }),
                ])
            }),
        ])
    }

    public init(plist: PlistValue) throws(ModelError) {
        func bad(_ reason: String) -> ModelError { .unreadableFile("model", reason) }
        guard plist["format"]?.int64Value == 1 else { throw bad("missing or unknown 'format' (expected 1)") }
        guard let entityList = plist["entities"]?.arrayValue else { throw bad("missing 'entities' array") }
        var entities: [EntityDescription] = []
        for item in entityList {
            guard let name = item["name"]?.stringValue else { throw bad("an entity has no name") }
            var entity = EntityDescription(name)
            for field in item["attributes"]?.arrayValue ?? [] {
                guard let attributeName = field["name"]?.stringValue,
                      let type = field["type"]?.stringValue.flatMap(AttributeType.init(rawValue:)) else {
                    throw bad("attribute of \(name) needs a name and a type (\(AttributeType.allCases.map(\.rawValue).joined(separator: ", ")))")
                }
                var defaultValue: AttributeValue?
                if let raw = field["default"] {
                    guard let value = AttributeValue(plist: raw, type: type) else {
                        throw .invalidDefault("\(name).\(attributeName)", expected: type)
                    }
                    defaultValue = value
                }
                entity.attributes.append(AttributeDescription(attributeName, type, optional: field["optional"]?.boolValue ?? true, default: defaultValue))
            }
            for field in item["relationships"]?.arrayValue ?? [] {
                guard let relationshipName = field["name"]?.stringValue, let destination = field["destination"]?.stringValue else {
                    throw bad("relationship of \(name) needs a name and a destination")
                }
                let rule = field["deleteRule"]?.stringValue ?? "nullify"
                guard let deleteRule = DeleteRule(rawValue: rule) else { throw bad("unknown delete rule '\(rule)' in \(name).\(relationshipName)") }
                entity.relationships.append(RelationshipDescription(relationshipName, destination: destination,
                    inverse: field["inverse"]?.stringValue, toMany: field["toMany"]?.boolValue ?? false, deleteRule: deleteRule))
            }
            entity.mergeGroups = (item["mergeGroups"]?.arrayValue ?? []).map { ($0.arrayValue ?? []).compactMap(\.stringValue) }
            entities.append(entity)
        }
        try self.init(name: plist["name"]?.stringValue ?? "Model", entities: entities)
    }

    /// Loads a model file (binary or XML plist).
    public static func load(contentsOf path: String) throws(ModelError) -> ObjectModel {
        let bytes: [UInt8]
        do { bytes = try AtomicFile.read(path, limit: 16 << 20, followingLinks: true) } catch { throw .unreadableFile(path, error.message) }
        let plist: PlistValue
        do { plist = try PlistSeam.decode(bytes) } catch { throw .unreadableFile(path, "\(error)") }
        do { return try ObjectModel(plist: plist) } catch let .unreadableFile(_, reason) { throw .unreadableFile(path, reason) }
    }

    /// The model file's bytes (XML by default, for people to read and edit).
    public func fileContents(format: PlistFormat = .xml) -> [UInt8] {
        PlistSeam.encode(plistValue, format: format)
    }
}
