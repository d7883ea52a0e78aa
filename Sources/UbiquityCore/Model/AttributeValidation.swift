import UbiquityPlist

// What a value of an attribute may be: the one place every reader checks it — a context's
// save, a log from the cloud (`TransactionLog(decoding:model:)`), a baseline's rows
// (`StoreJoin`). A new attribute type extends `problem(with:)` and `value(fromLog:)` here.
extension AttributeDescription {
    /// Why `value` cannot be this attribute's (another type, a number or date that is not
    /// finite); `nil` when it can. An absent value is judged by `problem(withAbsentValue:)`.
    public func problem(with value: AttributeValue) -> String? {
        guard value.type == type else { return "'\(name)' takes \(type.rawValue), not \(value.type.rawValue)" }
        switch value {
        case let .double(number) where !number.isFinite:
            return "'\(name)' holds \(number), not a finite number"
        case let .date(seconds) where !seconds.isFinite:
            return "'\(name)' holds the date \(seconds), not a finite number of seconds"
        default:
            return nil
        }
    }

    /// Why this attribute cannot be absent (it is required); `nil` when it may.
    public var problemWithAbsentValue: String? { isOptional ? nil : "required attribute '\(name)' has no value" }

    /// Reads this attribute's value from its log form (an empty dictionary is the absent
    /// value), checked by `problem(with:)`; throws the reason it cannot be this attribute's.
    public func value(fromLog plist: PlistValue) throws(AttributeValueProblem) -> AttributeValue? {
        if plist.isNullMarker { return nil }
        guard let value = AttributeValue(plist: plist, type: type) else {
            if type == .integer, case let .unsignedInteger(big) = plist {
                throw AttributeValueProblem("'\(name)' holds \(big), out of the range of integer (64-bit signed)")
            }
            throw AttributeValueProblem("'\(name)' holds \(plist.kindName), not \(type.rawValue)")
        }
        if let problem = problem(with: value) { throw AttributeValueProblem(problem) }
        return value
    }
}

/// Why a value cannot be an attribute's; its text names the attribute and says what is wrong.
public struct AttributeValueProblem: Error, CustomStringConvertible, Sendable {
    public let description: String
    init(_ description: String) { self.description = description }
}

extension PlistValue {
    /// What kind of value this is, for messages ("a string", "a date"…).
    var kindName: String {
        switch self {
        case .string: return "a string"
        case .integer, .unsignedInteger: return "an integer"
        case .real: return "a real"
        case .boolean: return "a boolean"
        case .date: return "a date"
        case .data: return "data"
        case .array: return "an array"
        case .dictionary: return "a dictionary"
        case .uid: return "a UID"
        case .null: return "null"
        }
    }
}
