import Foundation

/// One `name=value` change to an object, as the CLI's `insert`/`update` and scenario files
/// write it. Values are read by the property's type (`AttributeType.parse`). The rules:
/// - `name=nil` clears the value (absent), for every attribute type and for to-one relationships;
/// - `name=` is the empty string (or empty data for binary); other types need a value;
/// - a string value starting with a backslash loses it, so `'title=\nil'` stores the word "nil";
/// - a to-one relationship takes the target's global ID (`folder=Folder/trip`).
public struct PropertyAssignment: Sendable, Equatable, Codable {
    public let name: String
    public let text: String

    public init(name: String, text: String) {
        self.name = name
        self.text = text
    }

    /// Reads `name=value`.
    public init(parsing argument: String) throws(PropertyAssignmentError) {
        guard let equals = argument.firstIndex(of: "="), equals != argument.startIndex else {
            throw .notAnAssignment(argument)
        }
        name = String(argument[..<equals])
        text = String(argument[argument.index(after: equals)...])
    }

    /// Sets the value on `object` (a to-one target must exist in `context`).
    public func apply(to object: ManagedObject, in context: ObjectContext) throws {
        if let attribute = object.entity.attribute(name) ?? object.entity.transientAttribute(name) {
            try object.setValue(try value(for: attribute, of: object.entity), for: name)
        } else if let relationship = object.entity.relationship(name) {
            guard !relationship.isToMany else {
                throw PropertyAssignmentError.toManyAssigned(entity: object.entity.name, relationship: name)
            }
            guard text != "nil", !text.isEmpty else {
                try object.setTarget(nil, of: name)
                return
            }
            let target = try GlobalID(text)
            guard context.store.model.isKind(target.entity, of: relationship.destination) else {
                throw RelationshipError.wrongDestination(entity: object.entity.name, relationship: name, destination: relationship.destination, target: target)
            }
            guard try context.object(target) != nil else { throw StoreError.objectNotFound(target) }
            try object.setTarget(target, of: name)
        } else {
            throw ModelError.unknownProperty(entity: object.entity.name, property: name)
        }
    }

    /// What this assignment says `entity`'s property held when read (`update --expect`): an
    /// attribute's value, or a to-one's target.
    public func readValue(in entity: EntityDescription) throws -> ReadValue {
        if let attribute = entity.attribute(name) { return .attribute(try value(for: attribute, of: entity)) }
        guard let relationship = entity.relationship(name) else { throw ModelError.unknownProperty(entity: entity.name, property: name) }
        guard !relationship.isToMany else { throw PropertyAssignmentError.toManyExpected(entity: entity.name, relationship: name) }
        return .target(text == "nil" || text.isEmpty ? nil : try GlobalID(text))
    }

    /// The attribute value this assignment means for `attribute` (`nil`: absent).
    public func value(for attribute: AttributeDescription, of entity: EntityDescription) throws(PropertyAssignmentError) -> AttributeValue? {
        if text == "nil" { return nil }
        if attribute.type == .string { return .string(text.hasPrefix("\\") ? String(text.dropFirst()) : text) }
        guard let value = attribute.type.parse(text) else {
            throw .invalidValue(String(text.prefix(80)), entity: entity.name, attribute: attribute.name, type: attribute.type)
        }
        return value
    }

    /// What a value of `type` looks like, for error messages.
    public static func expectation(_ type: AttributeType) -> String {
        switch type {
        case .string: return "text"
        case .integer16, .integer32, .integer:
            let range = type.integerRange!
            return "an integer from \(range.lowerBound) to \(range.upperBound) such as 42 (or nil)"
        case .decimal: return "an exact decimal such as 12.50 or 1.5E+20 (or nil)"
        case .double, .float: return "a number such as 3.5 (or nil)"
        case .boolean: return "a boolean: true/false, yes/no, 1/0 (or nil)"
        case .date: return "a date such as 2024-05-01T10:00:00Z or seconds since 1970 (or nil)"
        case .binary, .transformable: return "base64 data such as base64:AAEC (or nil)"
        case .uuid: return "a UUID such as 6F9619FF-8B86-D011-B42D-00C04FC964FF (or nil)"
        case .uri: return "a URI such as https://example.com/a (or nil)"
        case .undefined: return "nothing: an undefined attribute takes no value from text"
        }
    }
}
