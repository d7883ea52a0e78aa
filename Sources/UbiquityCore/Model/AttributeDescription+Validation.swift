import Foundation
import Synchronization

// The one place the value rules of the model live (Core Data's validation of attributes and
// relationship counts). A context's save calls them before anything is written, and a log's
// reader calls them again for every value it carries, so a log that breaks the model is
// quarantined, never applied.
extension AttributeDescription {
    /// Checks `value` against this attribute of `entity`: optionality, the value's kind, the
    /// range of the integer types, the minimum and maximum value or length, the regular
    /// expression. Throws the first rule broken.
    public func validate(_ value: AttributeValue?, entity: String) throws(ValidationError) {
        guard let value else {
            if !isOptional { throw .missingValue(entity: entity, property: name) }
            return
        }
        try validateKind(value, entity: entity)
        if !validation.isEmpty { try validateRules(value, entity: entity) }
    }

    /// The value's kind, the range of its type and finite numbers and dates, without the
    /// attribute's own rules (a default value only has to fit its type).
    public func validateKind(_ value: AttributeValue, entity: String) throws(ValidationError) {
        try Self.validateKind(value, type: type, allowsExternalStorage: allowsExternalBinaryDataStorage, property: name, entity: entity)
    }

    /// `validateKind` from the parts of a description it reads (a save checks many values
    /// against a few attributes without copying their descriptions).
    static func validateKind(_ value: AttributeValue, type: AttributeType, allowsExternalStorage: Bool, property name: String,
                             entity: String) throws(ValidationError) {
        guard type.accepts(value) else { throw .wrongType(entity: entity, property: name, expected: type, found: value.type) }
        switch value {
        case let .integer(number):
            if let range = type.integerRange, !range.contains(number) { throw .outOfRange(entity: entity, property: name, type: type, value: number) }
        case let .double(number), let .date(number):
            if !number.isFinite { throw .notFinite(entity: entity, property: name) }
        case let .float(number):
            if !number.isFinite { throw .notFinite(entity: entity, property: name) }
        case .externalBinary:
            if !allowsExternalStorage { throw .externalNotAllowed(entity: entity, property: name) }
        default:
            break
        }
    }

    private func validateRules(_ value: AttributeValue, entity: String) throws(ValidationError) {
        if let minimum = validation.minimum, let order = Self.compare(value, minimum) {
            if order == .unordered { throw .notFinite(entity: entity, property: name) }
            if order == .less { throw .belowMinimum(entity: entity, property: name, value: value.description, minimum: minimum.description) }
        }
        if let maximum = validation.maximum, let order = Self.compare(value, maximum) {
            if order == .unordered { throw .notFinite(entity: entity, property: name) }
            if order == .greater { throw .aboveMaximum(entity: entity, property: name, value: value.description, maximum: maximum.description) }
        }
        let length: Int? = switch value {
        case let .string(text): text.utf16.count
        case let .binary(bytes): bytes.count
        case let .externalBinary(reference): Int(clamping: reference.size)
        default: nil
        }
        if let length {
            if let minimum = validation.minLength, length < minimum { throw .tooShort(entity: entity, property: name, length: length, minimum: minimum) }
            if let maximum = validation.maxLength, length > maximum { throw .tooLong(entity: entity, property: name, length: length, maximum: maximum) }
        }
        if let pattern = validation.compiledPattern, case let .string(text) = value, !pattern.matches(text) {
            throw .patternMismatch(entity: entity, property: name, pattern: pattern.source)
        }
    }

    enum Order { case less, equal, greater, unordered }

    /// How two values of one ordered kind compare; `nil` when they cannot be compared.
    static func compare(_ a: AttributeValue, _ b: AttributeValue) -> Order? {
        func order<T: Comparable>(_ x: T, _ y: T) -> Order { x < y ? .less : (y < x ? .greater : .equal) }
        switch (a, b) {
        case let (.integer(x), .integer(y)): return order(x, y)
        case let (.decimal(x), .decimal(y)): return order(x, y)
        case let (.double(x), .double(y)): return x.isNaN || y.isNaN ? .unordered : order(x, y)
        case let (.float(x), .float(y)): return x.isNaN || y.isNaN ? .unordered : order(x, y)
        case let (.date(x), .date(y)): return x.isNaN || y.isNaN ? .unordered : order(x, y)
        default: return nil
        }
    }
}

extension RelationshipDescription {
    /// Checks a to-one's target or a to-many's member count against this relationship of
    /// `entity`: a required to-one needs a target; a to-many holds at least its minimum count
    /// (one when required) and at most its maximum.
    public func validate(hasTarget: Bool, entity: String) throws(ValidationError) {
        if !isToMany, !isOptional, !hasTarget { throw .missingValue(entity: entity, property: name) }
    }

    public func validate(memberCount count: Int, entity: String) throws(ValidationError) {
        let minimum = max(minCount, isOptional ? 0 : 1)
        if count < minimum { throw .tooFewMembers(entity: entity, property: name, count: count, minimum: minimum) }
        if maxCount > 0, count > maxCount { throw .tooManyMembers(entity: entity, property: name, count: count, maximum: maxCount) }
    }

    /// Whether saving must count this relationship's members or check its target.
    public var hasCountRules: Bool { isToMany ? (minCount > 0 || maxCount > 0 || !isOptional) : !isOptional }
}
