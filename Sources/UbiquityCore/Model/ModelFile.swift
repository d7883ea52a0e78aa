import Foundation
import UbiquityBase
import UbiquityPlist

/// Reading and writing a model as a property list, so the CLI works with any model.
///
/// Shape: `{format, name, entities: [{name, parent?, abstract?, versionHashModifier?,
/// renamingIdentifier?, attributes: [{name, type, optional, default?, transient?, min?, max?,
/// minLength?, maxLength?, regularExpression?, versionHashModifier?, renamingIdentifier?,
/// allowsExternalBinaryDataStorage?, valueTransformerName?, derivation?}], relationships: [{name,
/// destination, inverse?, toMany, deleteRule, optional?, ordered?, minCount?, maxCount?,
/// transient?, versionHashModifier?, renamingIdentifier?}], mergeGroups: [[name]],
/// uniquenessConstraints?: [[name]]}]}`.
/// `format` is 1 for a model that uses none of the optional keys (older readers read it), 2
/// otherwise. Values (`default`, `min`, `max`) have their log form (Docs/ContainerFormat.md).
/// Xcode's own model files are read by `ObjectModel.load` too (`XcodeModelReader`).
extension ObjectModel {
    public var plistValue: PlistValue {
        var usesFormat2 = false
        func flag(_ fields: inout [String: PlistValue], _ key: String, _ value: Bool, unless usual: Bool = false) {
            guard value != usual else { return }
            fields[key] = .boolean(value)
            usesFormat2 = true
        }
        func text(_ fields: inout [String: PlistValue], _ key: String, _ value: String?) {
            guard let value else { return }
            fields[key] = .string(value)
            usesFormat2 = true
        }
        func number(_ fields: inout [String: PlistValue], _ key: String, _ value: Int?, skipping skip: Int? = nil) {
            guard let value, value != skip else { return }
            fields[key] = .integer(Int64(value))
            usesFormat2 = true
        }
        let entityList: [PlistValue] = declaredEntities.map { entity in
            var entityFields: [String: PlistValue] = [
                "name": .string(entity.name),
                "attributes": .array((entity.attributes + entity.transientAttributes).map { attribute in
                    var fields: [String: PlistValue] = [
                        "name": .string(attribute.name),
                        "type": .string(attribute.type.rawValue),
                        "optional": .boolean(attribute.isOptional),
                    ]
                    if let value = attribute.defaultValue { fields["default"] = value.plistValue }
                    flag(&fields, "transient", attribute.isTransient || (attribute.derivation == nil && entity.transientAttributes.contains(attribute)))
                    if let minimum = attribute.validation.minimum { fields["min"] = minimum.plistValue; usesFormat2 = true }
                    if let maximum = attribute.validation.maximum { fields["max"] = maximum.plistValue; usesFormat2 = true }
                    number(&fields, "minLength", attribute.validation.minLength)
                    number(&fields, "maxLength", attribute.validation.maxLength)
                    text(&fields, "regularExpression", attribute.validation.pattern)
                    text(&fields, "versionHashModifier", attribute.versionHashModifier)
                    text(&fields, "renamingIdentifier", attribute.renamingIdentifier)
                    flag(&fields, "allowsExternalBinaryDataStorage", attribute.allowsExternalBinaryDataStorage)
                    text(&fields, "valueTransformerName", attribute.valueTransformerName)
                    text(&fields, "derivation", attribute.derivation)
                    return .dictionary(fields)
                }),
                "relationships": .array((entity.relationships + entity.transientRelationships).map { relationship in
                    var fields: [String: PlistValue] = [
                        "name": .string(relationship.name),
                        "destination": .string(relationship.destination),
                        "toMany": .boolean(relationship.isToMany),
                        "deleteRule": .string(relationship.deleteRule.rawValue),
                    ]
                    if relationship.deleteRule == .noAction { usesFormat2 = true }
                    if let inverse = relationship.inverse { fields["inverse"] = .string(inverse) }
                    flag(&fields, "optional", relationship.isOptional, unless: true)
                    flag(&fields, "ordered", relationship.isOrdered)
                    number(&fields, "minCount", relationship.minCount, skipping: 0)
                    number(&fields, "maxCount", relationship.maxCount, skipping: 0)
                    flag(&fields, "transient", relationship.isTransient || entity.transientRelationships.contains(relationship))
                    text(&fields, "versionHashModifier", relationship.versionHashModifier)
                    text(&fields, "renamingIdentifier", relationship.renamingIdentifier)
                    return .dictionary(fields)
                }),
                "mergeGroups": .array(entity.mergeGroups.map { .array($0.map(PlistValue.string)) }),
            ]
            text(&entityFields, "parent", entity.parent)
            flag(&entityFields, "abstract", entity.isAbstract)
            text(&entityFields, "versionHashModifier", entity.versionHashModifier)
            text(&entityFields, "renamingIdentifier", entity.renamingIdentifier)
            if !entity.uniquenessConstraints.isEmpty {
                entityFields["uniquenessConstraints"] = .array(entity.uniquenessConstraints.map { .array($0.map(PlistValue.string)) })
                usesFormat2 = true
            }
            return .dictionary(entityFields)
        }
        return .dictionary([
            "format": .integer(usesFormat2 ? 2 : 1),
            "name": .string(name),
            "entities": .array(entityList),
        ])
    }

    public init(plist: PlistValue) throws(ModelError) {
        func bad(_ reason: String) -> ModelError { .unreadableFile("model", reason) }
        guard let format = plist["format"]?.int64Value, format == 1 || format == 2 else {
            throw bad("missing or unknown 'format' (expected 1 or 2)")
        }
        guard let entityList = plist["entities"]?.arrayValue else { throw bad("missing 'entities' array") }
        func count(_ field: PlistValue, _ key: String, _ path: String) throws(ModelError) -> Int? {
            guard let raw = field[key] else { return nil }
            guard let value = raw.int64Value, value >= 0, value <= Int64(Int32.max) else { throw bad("'\(key)' of \(path) is not a count") }
            return Int(value)
        }
        var entities: [EntityDescription] = []
        for item in entityList {
            guard let name = item["name"]?.stringValue else { throw bad("an entity has no name") }
            var entity = EntityDescription(name, parent: item["parent"]?.stringValue, abstract: item["abstract"]?.boolValue ?? false,
                                           versionHashModifier: item["versionHashModifier"]?.stringValue,
                                           renamingIdentifier: item["renamingIdentifier"]?.stringValue)
            for field in item["attributes"]?.arrayValue ?? [] {
                guard let attributeName = field["name"]?.stringValue,
                      let type = field["type"]?.stringValue.flatMap(AttributeType.init(rawValue:)) else {
                    throw bad("attribute of \(name) needs a name and a type (\(AttributeType.allCases.map(\.rawValue).joined(separator: ", ")))")
                }
                let path = "\(name).\(attributeName)"
                func value(_ key: String) throws(ModelError) -> AttributeValue? {
                    guard let raw = field[key] else { return nil }
                    guard let value = AttributeValue(plist: raw, type: type) else {
                        if key == "default" { throw .invalidDefault(path, expected: type) }
                        throw bad("'\(key)' of \(path) is not of type \(type.rawValue)")
                    }
                    return value
                }
                let validation = AttributeValidation(minimum: try value("min"), maximum: try value("max"),
                                                     minLength: try count(field, "minLength", path), maxLength: try count(field, "maxLength", path),
                                                     pattern: field["regularExpression"]?.stringValue)
                entity.attributes.append(AttributeDescription(
                    attributeName, type, optional: field["optional"]?.boolValue ?? true, default: try value("default"),
                    transient: field["transient"]?.boolValue ?? false, validation: validation,
                    versionHashModifier: field["versionHashModifier"]?.stringValue, renamingIdentifier: field["renamingIdentifier"]?.stringValue,
                    allowsExternalBinaryDataStorage: field["allowsExternalBinaryDataStorage"]?.boolValue ?? false,
                    valueTransformerName: field["valueTransformerName"]?.stringValue, derivation: field["derivation"]?.stringValue))
            }
            for field in item["relationships"]?.arrayValue ?? [] {
                guard let relationshipName = field["name"]?.stringValue, let destination = field["destination"]?.stringValue else {
                    throw bad("relationship of \(name) needs a name and a destination")
                }
                let path = "\(name).\(relationshipName)"
                let rule = field["deleteRule"]?.stringValue ?? "nullify"
                guard let deleteRule = DeleteRule(rawValue: rule) else { throw bad("unknown delete rule '\(rule)' in \(path)") }
                entity.relationships.append(RelationshipDescription(
                    relationshipName, destination: destination, inverse: field["inverse"]?.stringValue,
                    toMany: field["toMany"]?.boolValue ?? false, deleteRule: deleteRule,
                    optional: field["optional"]?.boolValue ?? true, ordered: field["ordered"]?.boolValue ?? false,
                    minCount: try count(field, "minCount", path) ?? 0, maxCount: try count(field, "maxCount", path) ?? 0,
                    transient: field["transient"]?.boolValue ?? false,
                    versionHashModifier: field["versionHashModifier"]?.stringValue, renamingIdentifier: field["renamingIdentifier"]?.stringValue))
            }
            entity.mergeGroups = (item["mergeGroups"]?.arrayValue ?? []).map { ($0.arrayValue ?? []).compactMap(\.stringValue) }
            entity.uniquenessConstraints = (item["uniquenessConstraints"]?.arrayValue ?? []).map { ($0.arrayValue ?? []).compactMap(\.stringValue) }
            entities.append(entity)
        }
        try self.init(name: plist["name"]?.stringValue ?? "Model", entities: entities)
    }

    /// Loads a plist model file (binary or XML).
    static func loadPlist(contentsOf path: String) throws(ModelError) -> ObjectModel {
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
