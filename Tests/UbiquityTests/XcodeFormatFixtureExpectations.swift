import Foundation
@testable import UbiquityCore

/// What the Workshop fixtures (Tests/Fixtures/models/xcode-formats) hold, written out by hand
/// from their XML, one line per entity, property, constraint and merge group, in the reader's
/// order: a sub-entity lists its parent's properties first, stored attributes come before
/// transient and derived ones, a composite is its parts. Each Xcode era adds what that Xcode
/// could draw: uniqueness constraints and date defaults (Xcode 8), UUID, URI, derived
/// attributes and secure transformers (Xcode 12), composites (Xcode 16).
enum XcodeFormatFixtureExpectations {
    /// The expected lines of version 1 (`Workshop`) or 2 (`Workshop 2`, which adds `Tool.brand`
    /// and renames `JobNote.text` to `body`) of the fixture drawn in Xcode `era`.
    static func lines(era: Int, version: Int) -> [String] {
        let asset = [
            "  acquired: Date?" + (era >= 8 ? " default date(504921600)" : "") + " min date(-978307200)",
            "  identifier: " + (era >= 12 ? "UUID" : "String"),
            "  tag: String default \"\"",
        ]
        let assetBench = "  bench -> Bench? inverse assets nullify"
        let identifierUnique = era >= 8 ? ["  unique identifier"] : []
        var lines = ["entity Asset abstract"] + asset + [assetBench] + identifierUnique
        lines += ["entity Bench"]
        lines += era >= 16 ? ["  footprint_depth: Double? default 0.0", "  footprint_width: Double? default 0.0"] : []
        lines += [
            "  label: String minLength 2 maxLength 8 pattern [A-Z][0-9]+",
            "  position: Integer 16? default 0 min 0 max 99",
            "  assets -> [Asset]? ordered max 40 inverse bench cascade",
        ]
        lines += era >= 8 ? ["  unique label"] : []
        lines += era >= 16 ? ["  together footprint_depth, footprint_width"] : []
        lines += [
            "entity Job",
            "  hours: Decimal? default 0 min 0",
            "  opened: Date",
            "  title: String default \"New job\"",
            "  urgent: Boolean? default false",
        ]
        lines += era >= 12 ? ["  noteCount: Integer 64? derived notes.@count"] : []
        lines += [
            "  mechanic -> Mechanic? inverse jobs nullify",
            "  notes -> [JobNote]? inverse job cascade",
            "  tools -> [Tool]? inverse jobs nullify",
            "entity JobNote",
            version == 1 ? "  text: String maxLength 2000" : "  body: String maxLength 2000 renamed from text",
            "  written: Date?",
            "  job -> Job inverse notes nullify",
            "entity Mechanic",
        ]
        lines += era >= 16 ? ["  address_city: String?", "  address_postcode: String? maxLength 10", "  address_street: String?"] : []
        lines += [
            "  badge: Integer 32? default 0",
            "  name: String",
            "  photo: Binary? external",
            "  rate: Float? default 25.5 min 0.0",
            "  apprentices -> [Mechanic]? inverse mentor nullify",
            "  jobs -> [Job]? inverse mechanic deny",
            "  mentor -> Mechanic? inverse apprentices noAction",
        ]
        lines += era >= 16 ? ["  together address_city, address_postcode, address_street"] : []
        lines += ["entity Tool : Asset"] + asset + tool(era: era, version: version) + [assetBench] + ["  jobs -> [Job]? inverse tools nullify"] + identifierUnique
        return lines
    }

    /// Tool's own attributes, after those it inherits from Asset.
    private static func tool(era: Int, version: Int) -> [String] {
        var lines = ["  cordless: Boolean? default true"]
        lines += version == 2 ? ["  brand: String?"] : []
        lines += era >= 12 ? ["  manual: URI?"] : []
        lines += [
            "  name: String",
            "  serial: Integer 64? default 0",
            "  settings: Transformable?" + (era >= 12 ? " transformer NSSecureUnarchiveFromData" : ""),
            "  voltage: Integer 16? default 230 min 0 max 400",
            "  weight: Double? default 0.0 min 0.0",
            "  preview: Undefined? transient",
            "  scratch: String? transient",
        ]
        return lines
    }

    /// One line per entity, property, uniqueness constraint and merge group of `model`.
    static func describe(_ model: ObjectModel) -> [String] {
        var lines: [String] = []
        for entity in model.entities {
            lines.append("entity \(entity.name)" + (entity.parent.map { " : \($0)" } ?? "") + (entity.isAbstract ? " abstract" : ""))
            lines += (entity.attributes + entity.transientAttributes).map { "  " + describe($0) }
            lines += (entity.relationships + entity.transientRelationships).map { "  " + describe($0) }
            lines += entity.uniquenessConstraints.map { "  unique " + $0.joined(separator: ", ") }
            lines += entity.mergeGroups.map { "  together " + $0.joined(separator: ", ") }
        }
        return lines
    }

    static func describe(_ attribute: AttributeDescription) -> String {
        var text = "\(attribute.name): \(attribute.type.xcodeName)" + (attribute.isOptional ? "?" : "")
        if attribute.isTransient { text += " transient" }
        if let derivation = attribute.derivation { text += " derived \(derivation)" }
        if let value = attribute.defaultValue { text += " default \(describe(value))" }
        let rules = attribute.validation
        if let minimum = rules.minimum { text += " min \(describe(minimum))" }
        if let maximum = rules.maximum { text += " max \(describe(maximum))" }
        if let length = rules.minLength { text += " minLength \(length)" }
        if let length = rules.maxLength { text += " maxLength \(length)" }
        if let pattern = rules.pattern { text += " pattern \(pattern)" }
        if attribute.allowsExternalBinaryDataStorage { text += " external" }
        if let transformer = attribute.valueTransformerName { text += " transformer \(transformer)" }
        if let old = attribute.renamingIdentifier { text += " renamed from \(old)" }
        return text
    }

    static func describe(_ relationship: RelationshipDescription) -> String {
        var text = "\(relationship.name) -> " + (relationship.isToMany ? "[\(relationship.destination)]" : relationship.destination)
        if relationship.isOptional { text += "?" }
        if relationship.isTransient { text += " transient" }
        if relationship.isOrdered { text += " ordered" }
        if relationship.minCount > 0 { text += " min \(relationship.minCount)" }
        if relationship.maxCount > 0 { text += " max \(relationship.maxCount)" }
        text += " inverse \(relationship.inverse ?? "-") \(relationship.deleteRule.rawValue)"
        if let old = relationship.renamingIdentifier { text += " renamed from \(old)" }
        return text
    }

    /// Dates as Xcode writes them: seconds since 2001.
    static func describe(_ value: AttributeValue) -> String {
        switch value {
        case let .string(text): return "\"\(text)\""
        case let .date(seconds): return "date(\(Int((seconds - XcodeModelReader.referenceDateOffset).rounded())))"
        case let .integer(number): return String(number)
        case let .boolean(flag): return String(flag)
        case let .decimal(number): return number.description
        case let .double(number): return String(number)
        case let .float(number): return String(number)
        default: return "\(value)"
        }
    }
}
