import Foundation
import UbiquityBase
import UbiquityCore

// A model as people and scripts read it (`ubiq model show`): every entity with its parent and
// sub-entities, every attribute with its type and rules, every relationship, and the hash.
extension ObjectModel {
    /// `{name, hash, entities: [{name, parent, abstract, subentities, versionHashModifier,
    /// renamingIdentifier, attributes: [...], relationships: [...]}]}`. Entities list their
    /// inherited properties too, each marked `inherited`; transient ones are marked `transient`.
    /// `fetchRequests`, `fetchedProperties` and `configurations` appear when the model has some.
    /// `warnings` (what is kept but not honoured) and `notes` (`{level, file, line, element,
    /// message}`, what the loader read leniently or ignored) appear when there are some.
    public var jsonValue: JSONValue {
        var fields: [String: JSONValue] = [
            "name": .string(name),
            "hash": .string(hash),
            "entities": .array(entities.map(entityJSON)),
        ]
        fields.merge(requestAndConfigurationFields) { current, _ in current }
        if !unhonouredFeatures.isEmpty { fields["warnings"] = .array(unhonouredFeatures.map(JSONValue.string)) }
        if !notes.isEmpty {
            fields["notes"] = .array(notes.map { note in
                .object(["level": .int(Int64(note.level.rawValue)), "file": .string(note.file), "line": note.line.map { .int(Int64($0)) } ?? .null,
                         "element": note.element.map(JSONValue.string) ?? .null, "message": .string(note.message)])
            })
        }
        return .object(fields)
    }

    private func entityJSON(_ entity: EntityDescription) -> JSONValue {
        let parent = entity.parent.flatMap(self.entity)
        func inherited(_ name: String) -> Bool {
            parent.map { $0.attribute(name) != nil || $0.relationship(name) != nil || $0.transientAttribute(name) != nil
                || $0.transientRelationships.contains { $0.name == name } } ?? false
        }
        var fields: [String: JSONValue] = [
            "name": .string(entity.name),
            "parent": entity.parent.map(JSONValue.string) ?? .null,
            "abstract": .bool(entity.isAbstract),
            "subentities": .array(family(of: entity.name).dropFirst().map(JSONValue.string)),
            "attributes": .array((entity.attributes + entity.transientAttributes).map { attributeJSON($0, inherited: inherited($0.name)) }),
            "relationships": .array((entity.relationships + entity.transientRelationships).map { relationshipJSON($0, inherited: inherited($0.name)) }),
        ]
        if !entity.mergeGroups.isEmpty { fields["mergeGroups"] = .array(entity.mergeGroups.map { .array($0.map(JSONValue.string)) }) }
        if let modifier = entity.versionHashModifier { fields["versionHashModifier"] = .string(modifier) }
        if let renamed = entity.renamingIdentifier { fields["renamingIdentifier"] = .string(renamed) }
        if !entity.uniquenessConstraints.isEmpty {
            fields["uniquenessConstraints"] = .array(entity.uniquenessConstraints.map { .array($0.map(JSONValue.string)) })
        }
        return .object(fields)
    }

    private func attributeJSON(_ attribute: AttributeDescription, inherited: Bool) -> JSONValue {
        var fields: [String: JSONValue] = [
            "name": .string(attribute.name),
            "type": .string(attribute.type.rawValue),
            "xcodeType": .string(attribute.type.xcodeName),
            "optional": .bool(attribute.isOptional),
            "transient": .bool(attribute.isTransient),
            "inherited": .bool(inherited),
            "default": attribute.defaultValue.jsonValue,
        ]
        let rules = attribute.validation
        if let minimum = rules.minimum { fields["min"] = minimum.jsonValue }
        if let maximum = rules.maximum { fields["max"] = maximum.jsonValue }
        if let length = rules.minLength { fields["minLength"] = .int(Int64(length)) }
        if let length = rules.maxLength { fields["maxLength"] = .int(Int64(length)) }
        if let pattern = rules.pattern { fields["regularExpression"] = .string(pattern) }
        if attribute.allowsExternalBinaryDataStorage { fields["allowsExternalBinaryDataStorage"] = .bool(true) }
        if let transformer = attribute.valueTransformerName { fields["valueTransformerName"] = .string(transformer) }
        if let modifier = attribute.versionHashModifier { fields["versionHashModifier"] = .string(modifier) }
        if let renamed = attribute.renamingIdentifier { fields["renamingIdentifier"] = .string(renamed) }
        if let derivation = attribute.derivation { fields["derivation"] = .string(derivation) }
        return .object(fields)
    }

    private func relationshipJSON(_ relationship: RelationshipDescription, inherited: Bool) -> JSONValue {
        var fields: [String: JSONValue] = [
            "name": .string(relationship.name),
            "destination": .string(relationship.destination),
            "inverse": relationship.inverse.map(JSONValue.string) ?? .null,
            "toMany": .bool(relationship.isToMany),
            "ordered": .bool(relationship.isOrdered),
            "optional": .bool(relationship.isOptional),
            "deleteRule": .string(relationship.deleteRule.rawValue),
            "transient": .bool(relationship.isTransient),
            "inherited": .bool(inherited),
        ]
        if relationship.minCount > 0 { fields["minCount"] = .int(Int64(relationship.minCount)) }
        if relationship.maxCount > 0 { fields["maxCount"] = .int(Int64(relationship.maxCount)) }
        if let modifier = relationship.versionHashModifier { fields["versionHashModifier"] = .string(modifier) }
        if let renamed = relationship.renamingIdentifier { fields["renamingIdentifier"] = .string(renamed) }
        return .object(fields)
    }

    /// The model for people: a heading with the hash, then each entity with its properties,
    /// one per line, inherited ones marked.
    public var textDescription: String {
        var lines = ["\(name)  (model hash \(hash))"]
        for entity in entities {
            var heading = entity.name
            if let parent = entity.parent { heading += " : \(parent)" }
            if entity.isAbstract { heading += "  (abstract)" }
            let subentities = family(of: entity.name).dropFirst()
            if !subentities.isEmpty { heading += "  sub-entities: \(subentities.joined(separator: ", "))" }
            lines.append(heading)
            let parent = entity.parent.flatMap(self.entity)
            for attribute in entity.attributes + entity.transientAttributes {
                var facts = [attribute.type.xcodeName, attribute.isOptional ? "optional" : "required"]
                if attribute.isTransient { facts.append("transient") }
                if let derivation = attribute.derivation { facts.append("derived from \(derivation) (not computed)") }
                if let value = attribute.defaultValue { facts.append("default \(Self.text(value))") }
                let rules = attribute.validation
                if rules.minimum != nil || rules.maximum != nil {
                    facts.append("value \(rules.minimum.map(Self.text) ?? "")…\(rules.maximum.map(Self.text) ?? "")")
                }
                if rules.minLength != nil || rules.maxLength != nil {
                    facts.append("length \(rules.minLength.map(String.init) ?? "")…\(rules.maxLength.map(String.init) ?? "")")
                }
                if let pattern = rules.pattern { facts.append("matches \(pattern)") }
                if attribute.allowsExternalBinaryDataStorage { facts.append("external storage allowed") }
                if let transformer = attribute.valueTransformerName { facts.append("transformer \(transformer)") }
                if let renamed = attribute.renamingIdentifier { facts.append("renamed from \(renamed)") }
                if let modifier = attribute.versionHashModifier { facts.append("hash modifier \(modifier)") }
                if parent?.attribute(attribute.name) != nil || parent?.transientAttribute(attribute.name) != nil { facts.append("inherited") }
                lines.append("  \(attribute.name): " + facts.joined(separator: ", "))
            }
            for relationship in entity.relationships + entity.transientRelationships {
                var facts = ["\(relationship.isToMany ? (relationship.isOrdered ? "ordered to-many" : "to-many") : "to-one") \(relationship.destination)"]
                facts.append(relationship.inverse.map { "inverse \($0)" } ?? "no inverse")
                facts.append(relationship.isOptional ? "optional" : "required")
                if relationship.minCount > 0 || relationship.maxCount > 0 {
                    facts.append("count \(relationship.minCount)…\(relationship.maxCount > 0 ? String(relationship.maxCount) : "")")
                }
                facts.append("delete rule \(relationship.deleteRule.rawValue)")
                if relationship.isTransient { facts.append("transient") }
                if let renamed = relationship.renamingIdentifier { facts.append("renamed from \(renamed)") }
                if let modifier = relationship.versionHashModifier { facts.append("hash modifier \(modifier)") }
                if parent?.relationship(relationship.name) != nil { facts.append("inherited") }
                lines.append("  \(relationship.name): " + facts.joined(separator: ", "))
            }
            for group in entity.mergeGroups { lines.append("  merge group: \(group.joined(separator: ", "))") }
            for constraint in entity.uniquenessConstraints {
                lines.append("  unique: \(constraint.joined(separator: ", "))")
            }
            lines += fetchedPropertyLines(of: entity.name)
        }
        lines += requestAndConfigurationLines
        let warnings = unhonouredFeatures
        if !warnings.isEmpty || !notes.isEmpty {
            lines.append("notes:")
            for feature in warnings { lines.append("  warning: \(feature)") }
            for note in notes { lines.append("  \(note.level == .warning ? "warning" : "info"): \(note.description)") }
        }
        return lines.joined(separator: "\n")
    }

    private static func text(_ value: AttributeValue) -> String {
        if case let .string(string) = value { return string.debugDescription }
        return value.description
    }
}

extension ModelDiff {
    /// `{sameHash, canInferMapping, changes: [{kind, entity, property, detail, mapping, reason?}]}`;
    /// `mapping` is `none` (no migration), `inferred` or `mappingModel`.
    public var jsonValue: JSONValue {
        .object([
            "sameHash": .bool(sameHash),
            "canInferMapping": .bool(canInferMapping),
            "changes": .array(changes.map { change in
                var fields: [String: JSONValue] = [
                    "kind": .string(change.kind.rawValue), "entity": .string(change.entity),
                    "property": change.property.map(JSONValue.string) ?? .null, "detail": .string(change.detail),
                ]
                switch change.mapping {
                case .noMigration: fields["mapping"] = .string("none")
                case .inferred: fields["mapping"] = .string("inferred")
                case let .needsMappingModel(reason):
                    fields["mapping"] = .string("mappingModel")
                    fields["reason"] = .string(reason)
                }
                return .object(fields)
            }),
        ])
    }

    /// One line per change (`+ Book.price: attribute added (decimal)  [inferred]`), then the verdict.
    public var textDescription: String {
        var lines: [String] = []
        for change in changes {
            let sign = switch change.kind { case .added: "+"; case .removed: "-"; case .renamed: ">"; case .changed: "~" }
            let path = change.property.map { "\(change.entity).\($0)" } ?? change.entity
            let mapping = switch change.mapping {
            case .noMigration: "no migration"
            case .inferred: "inferred"
            case let .needsMappingModel(reason): "needs a mapping model: \(reason)"
            }
            lines.append("\(sign) \(path): \(change.detail)  [\(mapping)]")
        }
        if changes.isEmpty { lines.append("no change") }
        if sameHash {
            lines.append("same model hash: no migration, peers on either version share their logs")
        } else if canInferMapping {
            lines.append("the mapping can be inferred (lightweight migration)")
        } else {
            lines.append("the mapping cannot be inferred: \(changes.filter { if case .needsMappingModel = $0.mapping { true } else { false } }.count) change(s) need a mapping model")
        }
        return lines.joined(separator: "\n")
    }
}
