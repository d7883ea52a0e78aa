import Foundation

/// Reads the `contents` file of an Xcode data model (`.xcdatamodel`), as Xcode 4 to 16 write
/// it, into an `ObjectModel`.
///
/// Everything that shapes the data is read: entities (abstract, parent), attributes of every
/// type with optionality, transience, defaults and validation rules, relationships with their
/// cardinality, counts, order, inverse and delete rule, renaming identifiers, version hash
/// modifiers, external storage and value transformer names. What does not change the data is
/// accepted and ignored: fetch requests, fetched properties, configurations, the diagram layout
/// (`<elements>`, which older Xcode versions write), user info, indexes, class names and code
/// generation settings. Anything else — an element or attribute this reader does not know, or
/// a feature it cannot honour (uniqueness constraints, derived and composite attributes) — is
/// an error naming the file, the line and the element.
struct XcodeModelReader {
    let file: String

    /// Seconds from 1970 to 2001, the reference date of Xcode's date bounds and defaults.
    static let referenceDateOffset: Double = 978_307_200

    private func fail(_ node: XMLElementNode, _ reason: String) -> ModelError {
        .unsupportedElement(file: file, line: node.line, element: node.name, reason: reason)
    }

    /// The model in `bytes`, named `name`.
    func read(_ bytes: [UInt8], name: String) throws(ModelError) -> ObjectModel {
        let root: XMLElementNode
        do { root = try XMLElementTree.parse(bytes) } catch {
            throw .unsupportedElement(file: file, line: error.line, element: error.element ?? "model", reason: error.message)
        }
        guard root.name == "model" else { throw fail(root, "not an Xcode data model (the root element is not <model>)") }
        try checkAttributes(root, known: Self.modelAttributes)
        if let type = root.attribute("type"), type != "com.apple.IDECoreDataModeler.DataModel" {
            throw fail(root, "unknown model type '\(type)'")
        }
        var entities: [EntityDescription] = []
        for child in root.children {
            switch child.name {
            case "entity": entities.append(try entity(child))
            case "fetchRequest", "configuration", "elements", "userInfo":
                continue  // no data: fetch templates, configurations, the diagram's layout
            case "compositeAttribute":
                throw fail(child, "composite attributes are not supported")
            default:
                throw fail(child, "unknown element in <model>")
            }
        }
        do {
            return try ObjectModel(name: name, entities: entities)
        } catch let .unreadableFile(_, reason) {
            throw .unreadableFile(file, reason)
        } catch {
            // The model's own checks name entities and properties; say which file they are in.
            throw .unreadableFile(file, error.description)
        }
    }

    // MARK: Entities

    private func entity(_ node: XMLElementNode) throws(ModelError) -> EntityDescription {
        try checkAttributes(node, known: Self.entityAttributes)
        let name = try required(node, "name")
        var entity = EntityDescription(name, parent: node.attribute("parentEntity"), abstract: try flag(node, "isAbstract") ?? false,
                                       versionHashModifier: node.attribute("versionHashModifier"),
                                       renamingIdentifier: node.attribute("elementID") ?? node.attribute("renamingIdentifier"))
        for child in node.children {
            switch child.name {
            case "attribute": entity.attributes.append(try attribute(child, entity: name))
            case "relationship": entity.relationships.append(try relationship(child))
            case "fetchedProperty", "userInfo", "fetchIndex", "compoundIndexes":
                continue  // queries, metadata and indexes: no data
            case "uniquenessConstraints":
                if child.children.isEmpty { continue }
                throw fail(child, "uniqueness constraints are not supported (objects are merged by global ID, never by a constraint)")
            default:
                throw fail(child, "unknown element in <entity name=\"\(name)\">")
            }
        }
        return entity
    }

    // MARK: Attributes

    private func attribute(_ node: XMLElementNode, entity: String) throws(ModelError) -> AttributeDescription {
        try checkAttributes(node, known: Self.attributeAttributes)
        try onlyUserInfo(node)
        let name = try required(node, "name")
        if try flag(node, "derived") == true || node.attribute("derivationExpression") != nil {
            throw fail(node, "derived attributes are not supported (\(entity).\(name))")
        }
        let typeName = try required(node, "attributeType")
        guard let type = AttributeType(xcodeName: typeName) else {
            if typeName == "Composite" { throw fail(node, "composite attributes are not supported (\(entity).\(name))") }
            throw fail(node, "unknown attribute type '\(typeName)' of \(entity).\(name)")
        }
        var attribute = AttributeDescription(
            name, type, optional: try flag(node, "optional") ?? false, transient: try flag(node, "transient") ?? false,
            versionHashModifier: node.attribute("versionHashModifier"),
            renamingIdentifier: node.attribute("elementID") ?? node.attribute("renamingIdentifier"),
            allowsExternalBinaryDataStorage: try flag(node, "allowsExternalBinaryDataStorage") ?? false,
            valueTransformerName: node.attribute("valueTransformerName"))
        attribute.defaultValue = try defaultValue(node, type: type)
        attribute.validation = try validation(node, type: type)
        return attribute
    }

    private func defaultValue(_ node: XMLElementNode, type: AttributeType) throws(ModelError) -> AttributeValue? {
        if let interval = node.attribute("defaultDateTimeInterval") {
            guard type == .date, let seconds = Double(interval) else { throw fail(node, "defaultDateTimeInterval '\(interval)' needs a Date attribute and a number") }
            return .date(secondsSince1970: seconds + Self.referenceDateOffset)
        }
        guard let text = node.attribute("defaultValueString") else { return nil }
        let value: AttributeValue?
        switch type {
        case .boolean:
            switch text.uppercased() {
            case "YES", "1", "TRUE": value = .boolean(true)
            case "NO", "0", "FALSE": value = .boolean(false)
            default: value = nil
            }
        case .string: value = .string(text)
        case .binary, .transformable, .date, .undefined: value = nil
        default: value = type.parse(text)
        }
        guard let value else { throw fail(node, "default value '\(text.prefix(80))' is not a \(type.xcodeName)") }
        return value
    }

    /// Xcode writes a number's bounds as `minValueString`/`maxValueString`, a string's or binary
    /// value's length bounds in the same keys, a date's bounds as seconds since 2001.
    private func validation(_ node: XMLElementNode, type: AttributeType) throws(ModelError) -> AttributeValidation {
        var rules = AttributeValidation(pattern: node.attribute("regularExpressionString"))
        if rules.pattern?.isEmpty == true { rules.pattern = nil }
        for (key, isMinimum) in [("minValueString", true), ("maxValueString", false)] {
            guard let text = node.attribute(key), !text.isEmpty else { continue }
            switch type {
            case .string, .binary, .transformable:
                guard let length = Int(text), length >= 0 else { throw fail(node, "\(key) '\(text)' is not a length") }
                if isMinimum { rules.minLength = length } else { rules.maxLength = length }
            case _ where type.isNumeric:
                guard let bound = type.parse(text) else { throw fail(node, "\(key) '\(text)' is not a \(type.xcodeName)") }
                if isMinimum { rules.minimum = bound } else { rules.maximum = bound }
            default:
                throw fail(node, "\(key) on a \(type.xcodeName) attribute")
            }
        }
        for (key, isMinimum) in [("minDateTimeInterval", true), ("maxDateTimeInterval", false)] {
            guard let text = node.attribute(key), !text.isEmpty else { continue }
            guard type == .date, let seconds = Double(text) else { throw fail(node, "\(key) '\(text)' needs a Date attribute and a number") }
            let bound = AttributeValue.date(secondsSince1970: seconds + Self.referenceDateOffset)
            if isMinimum { rules.minimum = bound } else { rules.maximum = bound }
        }
        return rules
    }

    // MARK: Relationships

    private func relationship(_ node: XMLElementNode) throws(ModelError) -> RelationshipDescription {
        try checkAttributes(node, known: Self.relationshipAttributes)
        try onlyUserInfo(node)
        let name = try required(node, "name")
        let destination = try required(node, "destinationEntity")
        let toMany = try flag(node, "toMany") ?? false
        let ordered = try flag(node, "ordered") ?? false
        let rule: DeleteRule
        switch node.attribute("deletionRule") ?? "Nullify" {
        case "Nullify": rule = .nullify
        case "Cascade": rule = .cascade
        case "Deny": rule = .deny
        case "No Action": rule = .noAction
        case let other: throw fail(node, "unknown deletion rule '\(other)'")
        }
        // Xcode writes counts on to-ones too (maxCount 1, and minCount 1 in Xcode 4): a to-one's
        // counts say nothing its optionality does not.
        return RelationshipDescription(
            name, destination: destination, inverse: node.attribute("inverseName"), toMany: toMany, deleteRule: rule,
            optional: try flag(node, "optional") ?? false, ordered: toMany && ordered,
            minCount: toMany ? try count(node, "minCount") : 0, maxCount: toMany ? try count(node, "maxCount") : 0,
            transient: try flag(node, "transient") ?? false, versionHashModifier: node.attribute("versionHashModifier"),
            renamingIdentifier: node.attribute("elementID") ?? node.attribute("renamingIdentifier"))
    }

    // MARK: Values

    private func required(_ node: XMLElementNode, _ key: String) throws(ModelError) -> String {
        guard let value = node.attribute(key), !value.isEmpty else { throw fail(node, "missing '\(key)'") }
        return value
    }

    private func flag(_ node: XMLElementNode, _ key: String) throws(ModelError) -> Bool? {
        guard let text = node.attribute(key) else { return nil }
        switch text {
        case "YES": return true
        case "NO": return false
        default: throw fail(node, "\(key)=\"\(text.prefix(40))\" is neither YES nor NO")
        }
    }

    private func count(_ node: XMLElementNode, _ key: String) throws(ModelError) -> Int {
        guard let text = node.attribute(key) else { return 0 }
        guard let value = Int(text), value >= 0 else { throw fail(node, "\(key)=\"\(text.prefix(40))\" is not a count") }
        return value
    }

    private func checkAttributes(_ node: XMLElementNode, known: Set<String>) throws(ModelError) {
        for (name, _) in node.attributes where !known.contains(name) {
            throw fail(node, "unknown attribute '\(name)'")
        }
    }

    private func onlyUserInfo(_ node: XMLElementNode) throws(ModelError) {
        for child in node.children where child.name != "userInfo" {
            throw fail(child, "unknown element in <\(node.name) name=\"\(node.attribute("name") ?? "")\">")
        }
    }

    // The attributes each element may carry. Those that change no data (class names, code
    // generation, Spotlight and history settings, tool versions) are read and ignored.
    static let modelAttributes: Set<String> = [
        "type", "documentVersion", "lastSavedToolsVersion", "systemVersion", "minimumToolsVersion", "sourceLanguage",
        "userDefinedModelVersionIdentifier", "name", "macOSVersion", "iOSVersion", "usedWithSwiftData", "usedWithCloudKit",
    ]
    static let entityAttributes: Set<String> = [
        "name", "representedClassName", "parentEntity", "isAbstract", "syncable", "codeGenerationType", "elementID",
        "renamingIdentifier", "versionHashModifier",
    ]
    static let attributeAttributes: Set<String> = [
        "name", "optional", "transient", "attributeType", "defaultValueString", "defaultDateTimeInterval",
        "usesScalarValueType", "syncable", "indexed", "indexedBySpotlight", "storedInTruthFile",
        "allowsExternalBinaryDataStorage", "valueTransformerName", "customClassName", "minValueString", "maxValueString",
        "minDateTimeInterval", "maxDateTimeInterval", "regularExpressionString", "versionHashModifier", "elementID",
        "renamingIdentifier", "preserveAfterDeletion", "allowsCloudEncryption", "derived", "derivationExpression",
    ]
    static let relationshipAttributes: Set<String> = [
        "name", "optional", "transient", "toMany", "ordered", "minCount", "maxCount", "deletionRule", "destinationEntity",
        "inverseName", "inverseEntity", "syncable", "elementID", "renamingIdentifier", "versionHashModifier", "indexed",
        "indexedBySpotlight", "storedInTruthFile",
    ]
}
