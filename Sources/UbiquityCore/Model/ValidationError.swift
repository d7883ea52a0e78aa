/// A value or relationship that breaks its model's rules: the entity, the property and the
/// rule, one case per rule. Thrown by a context's save, and the reason an imported log that
/// carries such a value is quarantined.
public enum ValidationError: Error, CustomStringConvertible, Equatable, Sendable {
    /// A required attribute without a value, or a required to-one without a target.
    case missingValue(entity: String, property: String)
    /// A value of another kind than the attribute's type (text for a date, say).
    case wrongType(entity: String, property: String, expected: AttributeType, found: AttributeType)
    /// An integer outside its type's range (Integer 16 and Integer 32).
    case outOfRange(entity: String, property: String, type: AttributeType, value: Int64)
    /// A number or date below the attribute's minimum value.
    case belowMinimum(entity: String, property: String, value: String, minimum: String)
    /// A number or date above the attribute's maximum value.
    case aboveMaximum(entity: String, property: String, value: String, maximum: String)
    /// A string (UTF-16 units) or binary value (bytes) shorter than the minimum length.
    case tooShort(entity: String, property: String, length: Int, minimum: Int)
    /// A string (UTF-16 units) or binary value (bytes) longer than the maximum length.
    case tooLong(entity: String, property: String, length: Int, maximum: Int)
    /// A string the attribute's regular expression does not match as a whole.
    case patternMismatch(entity: String, property: String, pattern: String)
    /// A double, float or date that is not finite (NaN or infinite): SQLite would keep NaN as
    /// NULL, and no peer could compare or order it.
    case notFinite(entity: String, property: String)
    /// A to-many holding fewer members than its minimum count (a required to-many: one).
    case tooFewMembers(entity: String, property: String, count: Int, minimum: Int)
    /// A to-many holding more members than its maximum count.
    case tooManyMembers(entity: String, property: String, count: Int, maximum: Int)
    /// An external binary value for an attribute that does not allow external storage.
    case externalNotAllowed(entity: String, property: String)

    /// The entity whose rule is broken.
    public var entity: String {
        switch self {
        case let .missingValue(entity, _), let .wrongType(entity, _, _, _), let .outOfRange(entity, _, _, _),
             let .belowMinimum(entity, _, _, _), let .aboveMaximum(entity, _, _, _), let .tooShort(entity, _, _, _),
             let .tooLong(entity, _, _, _), let .patternMismatch(entity, _, _), let .notFinite(entity, _),
             let .tooFewMembers(entity, _, _, _), let .tooManyMembers(entity, _, _, _), let .externalNotAllowed(entity, _):
            return entity
        }
    }

    /// The property whose rule is broken.
    public var property: String {
        switch self {
        case let .missingValue(_, property), let .wrongType(_, property, _, _), let .outOfRange(_, property, _, _),
             let .belowMinimum(_, property, _, _), let .aboveMaximum(_, property, _, _), let .tooShort(_, property, _, _),
             let .tooLong(_, property, _, _), let .patternMismatch(_, property, _), let .notFinite(_, property),
             let .tooFewMembers(_, property, _, _), let .tooManyMembers(_, property, _, _), let .externalNotAllowed(_, property):
            return property
        }
    }

    public var description: String {
        let path = "\(entity).\(property)"
        switch self {
        case .missingValue: return "validation failed: \(path) is required and has no value"
        case let .wrongType(_, _, expected, found): return "validation failed: \(path) takes \(expected.rawValue), not \(found.rawValue)"
        case let .outOfRange(_, _, type, value):
            let range = type.integerRange.map { "\($0.lowerBound)…\($0.upperBound)" } ?? ""
            return "validation failed: \(path) is \(type.xcodeName) (\(range)); \(value) does not fit"
        case let .belowMinimum(_, _, value, minimum): return "validation failed: \(path) is \(value), below its minimum \(minimum)"
        case let .aboveMaximum(_, _, value, maximum): return "validation failed: \(path) is \(value), above its maximum \(maximum)"
        case let .tooShort(_, _, length, minimum): return "validation failed: \(path) has length \(length), shorter than its minimum length \(minimum)"
        case let .tooLong(_, _, length, maximum): return "validation failed: \(path) has length \(length), longer than its maximum length \(maximum)"
        case let .patternMismatch(_, _, pattern): return "validation failed: \(path) does not match its regular expression \(pattern)"
        case .notFinite: return "validation failed: \(path) is not a finite number"
        case let .tooFewMembers(_, _, count, minimum): return "validation failed: \(path) holds \(count) object(s), fewer than its minimum count \(minimum)"
        case let .tooManyMembers(_, _, count, maximum): return "validation failed: \(path) holds \(count) object(s), more than its maximum count \(maximum)"
        case .externalNotAllowed: return "validation failed: \(path) does not allow external storage, and the value is an external file"
        }
    }
}
