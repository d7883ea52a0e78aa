import Foundation
import UbiquityBase

/// Reads the `contents` file of an Xcode data model (`.xcdatamodel`), as Xcode 4 to 16 write
/// it, into an `ObjectModel`, with Core Data's leniency: it takes every model Core Data takes.
///
/// Everything that shapes the data is read: entities (abstract, parent, uniqueness
/// constraints), attributes of every type with optionality, transience, defaults, validation
/// rules and derivations, composite attributes (as their parts), relationships with their
/// cardinality, counts, order, inverse and delete rule, renaming identifiers, version hash
/// modifiers, external storage and value transformer names; and fetch request templates, fetched
/// properties and configurations, kept beside the entities. What does not change the data — the
/// diagram layout, user info, indexes, class names, code generation — is ignored. What this reader does not know is ignored with a
/// note (`ObjectModel.notes`, level 2), and so is what it reads more leniently than Xcode
/// writes it (a default value `0.0` of an integer, `YES` of a number); an inverse that does not
/// answer is read as no inverse, with a level-1 note. What Core Data refuses — an unknown type of
/// a stored attribute, a relationship to an entity the model lacks, XML that does not parse —
/// is an error naming the file, the line and the element.
struct XcodeModelReader {
    let file: String
    private var notes: [ModelNote] = []
    /// Model-level `<composite>` definitions, by name (Xcode 15 and later).
    private var composites: [String: XMLElementNode] = [:]
    /// The line of each relationship, by `Entity.relationship`.
    private var relationshipLines: [String: Int] = [:]
    /// Each `<fetchedProperty>` with the entity that declares it, read once the entities are known.
    var fetchedPropertyNodes: [(node: XMLElementNode, entity: String)] = []

    init(file: String) { self.file = file }

    /// Seconds from 1970 to 2001, the reference date of Xcode's date bounds and defaults.
    static let referenceDateOffset: Double = 978_307_200

    func fail(_ node: XMLElementNode, _ reason: String) -> ModelError {
        .unsupportedElement(file: file, line: node.line, element: node.name, reason: reason)
    }

    mutating func note(_ node: XMLElementNode, _ message: String, level: LogLevel = .info) {
        notes.append(ModelNote(level, file: file, line: node.line, element: node.name, message))
    }

    /// The model in `bytes`, named `name`, with what was noted in `notes`.
    func read(_ bytes: [UInt8], name: String) throws(ModelError) -> ObjectModel {
        var reader = self
        return try reader.readModel(bytes, name: name)
    }

    private mutating func readModel(_ bytes: [UInt8], name: String) throws(ModelError) -> ObjectModel {
        let root: XMLElementNode
        do { root = try XMLElementTree.parse(bytes) } catch {
            throw .unsupportedElement(file: file, line: error.line, element: error.element ?? "model", reason: error.message)
        }
        guard root.name == "model" else { throw fail(root, "not an Xcode data model (the root element is not <model>)") }
        checkAttributes(root, known: Self.modelAttributes)
        if let type = root.attribute("type"), type != "com.apple.IDECoreDataModeler.DataModel" {
            throw fail(root, "unknown model type '\(type)'")
        }
        for child in root.children where child.name == "composite" {
            if let compositeName = child.attribute("name") { composites[compositeName] = child }
        }
        var entities: [EntityDescription] = []
        var requestNodes: [XMLElementNode] = [], configurationNodes: [XMLElementNode] = []
        for child in root.children {
            switch child.name {
            case "entity": entities.append(try entity(child))
            case "fetchRequest": requestNodes.append(child)
            case "configuration": configurationNodes.append(child)
            case "elements", "userInfo", "composite":
                continue  // no data of their own: the diagram's layout, composites' parts (read where used)
            default:
                note(child, "unknown element in <model> ignored")
            }
        }
        try checkRelationships(&entities)
        let names = Set(entities.map(\.name))
        var templates: [FetchRequestTemplate] = [], configurations: [ModelConfiguration] = []
        var fetchedProperties: [FetchedPropertyDescription] = []
        for node in requestNodes { templates.append(try fetchRequestTemplate(node, entities: names)) }
        for node in configurationNodes { configurations.append(try configuration(node, entities: names)) }
        for (node, entity) in fetchedPropertyNodes { fetchedProperties.append(try fetchedProperty(node, of: entity, entities: names)) }
        var model: ObjectModel
        do {
            model = try ObjectModel(name: name, entities: entities)
        } catch let .unreadableFile(_, reason) {
            throw .unreadableFile(file, reason)
        } catch {
            // The model's own checks name entities and properties; say which file they are in.
            throw .unreadableFile(file, error.description)
        }
        model.notes = notes
        model.fetchRequestTemplates = templates
        model.configurations = configurations
        model.fetchedProperties = fetchedProperties
        return model
    }

    // MARK: Entities

    private mutating func entity(_ node: XMLElementNode) throws(ModelError) -> EntityDescription {
        checkAttributes(node, known: Self.entityAttributes)
        let name = try required(node, "name")
        var entity = EntityDescription(name, parent: node.attribute("parentEntity"), abstract: try flag(node, "isAbstract") ?? false,
                                       versionHashModifier: node.attribute("versionHashModifier"),
                                       renamingIdentifier: node.attribute("elementID") ?? node.attribute("renamingIdentifier"))
        for child in node.children {
            switch child.name {
            case "attribute":
                let (attributes, group) = try attribute(child, entity: name)
                entity.attributes += attributes
                if let group { entity.mergeGroups.append(group) }
            case "relationship":
                entity.relationships.append(try relationship(child))
                relationshipLines["\(name).\(entity.relationships.last!.name)"] = child.line
            case "uniquenessConstraints":
                entity.uniquenessConstraints += uniquenessConstraints(child)
            case "fetchedProperty":
                fetchedPropertyNodes.append((child, name))
            case "userInfo", "fetchIndex", "compoundIndexes":
                continue  // metadata and indexes: no data
            default:
                note(child, "unknown element in <entity name=\"\(name)\"> ignored")
            }
        }
        return entity
    }

    /// `<uniquenessConstraints><uniquenessConstraint><constraint value="name"/>…`.
    private mutating func uniquenessConstraints(_ node: XMLElementNode) -> [[String]] {
        var constraints: [[String]] = []
        for constraint in node.children {
            guard constraint.name == "uniquenessConstraint" else {
                note(constraint, "unknown element in <uniquenessConstraints> ignored")
                continue
            }
            var names: [String] = []
            for member in constraint.children {
                guard member.name == "constraint", let value = member.attribute("value"), !value.isEmpty else {
                    note(member, "not a <constraint value=\"…\"/>: ignored")
                    continue
                }
                names.append(value)
            }
            if !names.isEmpty, !constraints.contains(names) { constraints.append(names) }
        }
        return constraints
    }

    // MARK: Attributes

    /// An attribute, or a composite attribute's parts (named `composite_part`, won together in
    /// a merge when stored).
    private mutating func attribute(_ node: XMLElementNode, entity: String, prefix: String = "") throws(ModelError) -> ([AttributeDescription], [String]?) {
        checkAttributes(node, known: Self.attributeAttributes)
        let name = prefix + (try required(node, "name"))
        let transient = try flag(node, "transient") ?? false
        let type: AttributeType
        if let typeName = node.attribute("attributeType"), !typeName.isEmpty {
            if typeName == "Composite" { return try composite(node, name: name, entity: entity, transient: transient) }
            if let known = AttributeType(xcodeName: typeName) {
                type = known
            } else if transient {
                note(node, "unknown attribute type '\(typeName)' of transient \(entity).\(name) read as Undefined")
                type = .undefined
            } else {
                throw fail(node, "unknown attribute type '\(typeName)' of \(entity).\(name)")
            }
        } else {
            guard transient else {
                throw fail(node, "\(entity).\(name) has no attributeType (Undefined), which Core Data allows on transient attributes only")
            }
            type = .undefined
        }
        for child in node.children where child.name != "userInfo" {
            note(child, "unknown element in <attribute name=\"\(name)\"> ignored")
        }
        var derivation: String?
        let expression = node.attribute("derivationExpression").flatMap { $0.isEmpty ? nil : $0 }
        switch try flag(node, "derived") {
        case true?:
            guard let expression else { throw fail(node, "derived attribute \(entity).\(name) has no derivationExpression") }
            derivation = expression
        case false?:
            if expression != nil { note(node, "derivationExpression of \(entity).\(name) ignored: derived=\"NO\"") }
        case nil:
            derivation = expression
        }
        var attribute = AttributeDescription(
            name, type, optional: try flag(node, "optional") ?? false, transient: transient,
            versionHashModifier: node.attribute("versionHashModifier"),
            renamingIdentifier: node.attribute("elementID") ?? node.attribute("renamingIdentifier"),
            allowsExternalBinaryDataStorage: try flag(node, "allowsExternalBinaryDataStorage") ?? false,
            valueTransformerName: node.attribute("valueTransformerName"), derivation: derivation)
        attribute.defaultValue = try defaultValue(node, type: type, path: "\(entity).\(name)")
        attribute.validation = try validation(node, type: type)
        return ([attribute], nil)
    }

    /// A composite attribute (Xcode 15): its parts are child `<attribute>` elements, or those
    /// of the model's `<composite name="…">` it names. Each part becomes an attribute named
    /// `composite_part`; stored parts are one merge group, so a merge never mixes two writers'
    /// parts (Core Data keeps a composite as one value).
    private mutating func composite(_ node: XMLElementNode, name: String, entity: String, transient: Bool) throws(ModelError) -> ([AttributeDescription], [String]?) {
        var parts = node.children.filter { $0.name == "attribute" }
        if parts.isEmpty, let definition = node.attribute("composite").flatMap({ composites[$0] }) {
            parts = definition.children.filter { $0.name == "attribute" }
        }
        guard !parts.isEmpty else { throw fail(node, "composite attribute \(entity).\(name) has no parts (no <attribute> in it or in the <composite> it names)") }
        for child in node.children where child.name != "attribute" && child.name != "userInfo" {
            note(child, "unknown element in <attribute name=\"\(name)\"> ignored")
        }
        let optional = try flag(node, "optional") ?? false
        var attributes: [AttributeDescription] = []
        for part in parts {
            for var attribute in try attribute(part, entity: entity, prefix: name + "_").0 {
                attribute.isOptional = attribute.isOptional || optional
                attribute.isTransient = attribute.isTransient || transient
                attributes.append(attribute)
            }
        }
        note(node, "composite attribute \(entity).\(name) read as its parts \(attributes.map(\.name).joined(separator: ", "))")
        let stored = attributes.filter { !$0.isKeptInMemoryOnly }.map(\.name)
        return (attributes, stored.count >= 2 ? stored : nil)
    }

    private mutating func defaultValue(_ node: XMLElementNode, type: AttributeType, path: String) throws(ModelError) -> AttributeValue? {
        if let interval = node.attribute("defaultDateTimeInterval"), !interval.isEmpty {
            guard type == .date, let seconds = Double(interval), seconds.isFinite else { throw fail(node, "defaultDateTimeInterval '\(interval)' needs a Date attribute and a number") }
            return .date(secondsSince1970: seconds + Self.referenceDateOffset)
        }
        guard let text = node.attribute("defaultValueString") else { return nil }
        switch type {
        case .string:
            return .string(text)
        case .binary, .transformable, .undefined, .uuid, .uri:
            note(node, "defaultValueString of \(path) ignored: Core Data gives a \(type.xcodeName) attribute no default from a string")
            return nil
        case .date:
            guard let seconds = Double(text.trimmingCharacters(in: .whitespaces)), seconds.isFinite else {
                note(node, "defaultValueString '\(text.prefix(80))' of \(path) ignored: a date's default is a number of seconds since 2001")
                return nil
            }
            return .date(secondsSince1970: seconds + Self.referenceDateOffset)
        default:
            if text.trimmingCharacters(in: .whitespaces).isEmpty { return nil }
            guard let value = number(text, type: type, node: node, what: "default value", path: path) else {
                throw fail(node, "default value '\(text.prefix(80))' is not a \(type.xcodeName)")
            }
            return value
        }
    }

    /// A number (or a Boolean) as Core Data reads it from the model's strings, `NSNumber`-like:
    /// an integer's decimal string is truncated toward zero (`0.0` is 0), `YES`/`NO` and
    /// `true`/`false` are 1 and 0, and a Boolean is true for any number but zero. Reading a
    /// value more leniently than its exact form is noted.
    private mutating func number(_ raw: String, type: AttributeType, node: XMLElementNode, what: String, path: String) -> AttributeValue? {
        let text = raw.trimmingCharacters(in: .whitespaces)
        if type != .boolean, let exact = type.parse(text) { return exact }
        let word: Bool?
        switch text.lowercased() {
        case "yes", "true": word = true
        case "no", "false": word = false
        default: word = nil
        }
        let value: AttributeValue?
        if type == .boolean {
            if let word {
                value = .boolean(word)
            } else if let number = Double(text), !number.isNaN {
                value = .boolean(number != 0)
            } else {
                value = nil
            }
            if let value, ["yes", "no", "true", "false", "1", "0"].contains(text.lowercased()) { return value }
        } else if let word {
            value = type.parse(word ? "1" : "0")
        } else if let number = Double(text), number.isFinite, type.integerRange != nil {
            let truncated = number.rounded(.towardZero)
            value = truncated >= -9.2e18 && truncated <= 9.2e18 ? .integer(Int64(truncated)) : nil
        } else {
            value = nil
        }
        if let value { note(node, "\(what) '\(raw.prefix(40))' of \(path) read as \(Self.text(of: value)), as Core Data reads it") }
        return value
    }

    private static func text(of value: AttributeValue) -> String {
        switch value {
        case let .integer(number): return String(number)
        case let .boolean(flag): return flag ? "true" : "false"
        default: return "\(value)"
        }
    }

    /// Xcode writes a number's bounds as `minValueString`/`maxValueString`, a string's or binary
    /// value's length bounds in the same keys, a date's bounds as seconds since 2001
    /// (`minDateTimeInterval`, or a number in `minValueString`).
    private mutating func validation(_ node: XMLElementNode, type: AttributeType) throws(ModelError) -> AttributeValidation {
        var rules = AttributeValidation(pattern: node.attribute("regularExpressionString"))
        if rules.pattern?.isEmpty == true { rules.pattern = nil }
        let path = node.attribute("name") ?? ""
        func date(_ text: String, _ key: String) throws(ModelError) -> AttributeValue {
            guard let seconds = Double(text.trimmingCharacters(in: .whitespaces)), seconds.isFinite else {
                throw fail(node, "\(key) '\(text.prefix(40))' of a Date attribute is not a number of seconds since 2001")
            }
            return .date(secondsSince1970: seconds + Self.referenceDateOffset)
        }
        for (key, isMinimum) in [("minValueString", true), ("maxValueString", false)] {
            guard let text = node.attribute(key), !text.isEmpty else { continue }
            switch type {
            case .string, .binary, .transformable:
                guard let length = Int(text.trimmingCharacters(in: .whitespaces)), length >= 0 else { throw fail(node, "\(key) '\(text)' is not a length") }
                if isMinimum { rules.minLength = length } else { rules.maxLength = length }
            case .date:
                let bound = try date(text, key)
                if isMinimum { rules.minimum = bound } else { rules.maximum = bound }
            case _ where type.isNumeric:
                guard let bound = number(text, type: type, node: node, what: key, path: path) else { throw fail(node, "\(key) '\(text)' is not a \(type.xcodeName)") }
                if isMinimum { rules.minimum = bound } else { rules.maximum = bound }
            default:
                note(node, "\(key) on a \(type.xcodeName) attribute ignored")
            }
        }
        for (key, isMinimum) in [("minDateTimeInterval", true), ("maxDateTimeInterval", false)] {
            guard let text = node.attribute(key), !text.isEmpty else { continue }
            guard type == .date else { throw fail(node, "\(key) '\(text)' needs a Date attribute") }
            let bound = try date(text, key)
            if isMinimum { rules.minimum = bound } else { rules.maximum = bound }
        }
        return rules
    }

    // MARK: Relationships

    private mutating func relationship(_ node: XMLElementNode) throws(ModelError) -> RelationshipDescription {
        checkAttributes(node, known: Self.relationshipAttributes)
        for child in node.children where child.name != "userInfo" {
            note(child, "unknown element in <relationship name=\"\(node.attribute("name") ?? "")\"> ignored")
        }
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
            name, destination: destination, inverse: node.attribute("inverseName").flatMap { $0.isEmpty ? nil : $0 }, toMany: toMany, deleteRule: rule,
            optional: try flag(node, "optional") ?? false, ordered: toMany && ordered,
            minCount: toMany ? try count(node, "minCount") : 0, maxCount: toMany ? try count(node, "maxCount") : 0,
            transient: try flag(node, "transient") ?? false, versionHashModifier: node.attribute("versionHashModifier"),
            renamingIdentifier: node.attribute("elementID") ?? node.attribute("renamingIdentifier"))
    }

    /// Destinations and inverses, as Xcode's model compiler checks them: a destination the model
    /// lacks, or an inverse the destination lacks, is an error on the relationship's line; a
    /// relationship without an inverse is noted (level 2); an inverse that does not name the
    /// relationship back is noted (level 1) and dropped, so the relationship is stored on its
    /// own and the other side keeps its own inverse.
    private mutating func checkRelationships(_ entities: inout [EntityDescription]) throws(ModelError) {
        let byName = Dictionary(entities.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        func lineage(_ name: String) -> [EntityDescription] {
            var chain: [EntityDescription] = []
            var seen: Set<String> = []
            var current = byName[name]
            while let entity = current, seen.insert(entity.name).inserted {
                chain.append(entity)
                current = entity.parent.flatMap { byName[$0] }
            }
            return chain
        }
        func place(_ path: String) -> XMLElementNode {
            XMLElementNode(name: "relationship", attributes: [], children: [], line: relationshipLines[path] ?? 0)
        }
        for (offset, entity) in entities.enumerated() {
            for (index, relationship) in entity.relationships.enumerated() {
                let path = "\(entity.name).\(relationship.name)"
                guard byName[relationship.destination] != nil else {
                    throw fail(place(path), "the destination entity '\(relationship.destination)' of \(path) is not in the model")
                }
                guard let inverseName = relationship.inverse else {
                    if !relationship.isTransient { note(place(path), "\(path) has no inverse relationship (Core Data keeps such a relationship consistent on one side only)") }
                    continue
                }
                guard let inverse = lineage(relationship.destination).lazy.compactMap({ $0.relationships.first { $0.name == inverseName } }).first else {
                    throw fail(place(path), "the inverse '\(inverseName)' of \(path) is not a relationship of \(relationship.destination)")
                }
                let answers = inverse.inverse == relationship.name && lineage(entity.name).contains { $0.name == inverse.destination }
                if !answers {
                    let back = inverse.inverse.map { "names \(inverse.destination).\($0) as its inverse" } ?? "has no inverse"
                    note(place(path), "\(path) names \(relationship.destination).\(inverseName) as its inverse, but \(relationship.destination).\(inverseName) \(back): the inverse is not reciprocal, and \(path) is read as having no inverse", level: .warning)
                    entities[offset].relationships[index].inverse = nil
                }
            }
        }
    }

    // MARK: Values

    func required(_ node: XMLElementNode, _ key: String) throws(ModelError) -> String {
        guard let value = node.attribute(key), !value.isEmpty else { throw fail(node, "missing '\(key)'") }
        return value
    }

    func flag(_ node: XMLElementNode, _ key: String) throws(ModelError) -> Bool? {
        guard let text = node.attribute(key) else { return nil }
        switch text {
        case "YES": return true
        case "NO": return false
        default: throw fail(node, "\(key)=\"\(text.prefix(40))\" is neither YES nor NO")
        }
    }

    func count(_ node: XMLElementNode, _ key: String) throws(ModelError) -> Int {
        guard let text = node.attribute(key) else { return 0 }
        guard let value = Int(text), value >= 0 else { throw fail(node, "\(key)=\"\(text.prefix(40))\" is not a count") }
        return value
    }

    mutating func checkAttributes(_ node: XMLElementNode, known: Set<String>) {
        for (name, _) in node.attributes where !known.contains(name) {
            note(node, "unknown attribute '\(name)' ignored")
        }
    }

    // The attributes each element may carry. Those that change no data (class names, code
    // generation, Spotlight, history and CloudKit settings, tool versions) are read and ignored
    // without a note; any other is ignored with one.
    static let modelAttributes: Set<String> = [
        "type", "documentVersion", "lastSavedToolsVersion", "systemVersion", "minimumToolsVersion", "sourceLanguage",
        "userDefinedModelVersionIdentifier", "name", "macOSVersion", "iOSVersion", "usedWithSwiftData", "usedWithCloudKit",
    ]
    static let entityAttributes: Set<String> = [
        "name", "representedClassName", "parentEntity", "isAbstract", "syncable", "codeGenerationType", "elementID",
        "renamingIdentifier", "versionHashModifier", "spotlightIndexingEnabled",
    ]
    static let attributeAttributes: Set<String> = [
        "name", "optional", "transient", "attributeType", "defaultValueString", "defaultDateTimeInterval",
        "usesScalarValueType", "syncable", "indexed", "indexedBySpotlight", "storedInTruthFile", "spotlightIndexingEnabled",
        "allowsExternalBinaryDataStorage", "valueTransformerName", "customClassName", "minValueString", "maxValueString",
        "minDateTimeInterval", "maxDateTimeInterval", "regularExpressionString", "versionHashModifier", "elementID",
        "renamingIdentifier", "preserveAfterDeletion", "allowsCloudEncryption", "derived", "derivationExpression", "composite",
    ]
    static let relationshipAttributes: Set<String> = [
        "name", "optional", "transient", "toMany", "ordered", "minCount", "maxCount", "deletionRule", "destinationEntity",
        "inverseName", "inverseEntity", "syncable", "elementID", "renamingIdentifier", "versionHashModifier", "indexed",
        "indexedBySpotlight", "storedInTruthFile", "spotlightIndexingEnabled",
    ]
}
