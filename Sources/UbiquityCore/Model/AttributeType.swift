import Foundation

/// The type of an attribute, as declared in the model: Core Data's attribute types.
///
/// The raw value is the name in model files and in the model hash; `integer` is Core Data's
/// Integer 64 (the name it had before the narrower integers existed, kept so that models and
/// their hashes stay as they were).
public enum AttributeType: String, Sendable, CaseIterable, Codable {
    case integer16, integer32
    /// Integer 64.
    case integer
    case decimal, double, float, string, boolean, date, binary, uuid, uri
    /// Opaque bytes the app's value transformer (named by the attribute) makes and reads.
    case transformable
    /// Any value: for transient attributes only, as in Core Data.
    case undefined

    /// The name Xcode's model editor writes (`attributeType` in a model's `contents`).
    public var xcodeName: String {
        switch self {
        case .integer16: return "Integer 16"
        case .integer32: return "Integer 32"
        case .integer: return "Integer 64"
        case .decimal: return "Decimal"
        case .double: return "Double"
        case .float: return "Float"
        case .string: return "String"
        case .boolean: return "Boolean"
        case .date: return "Date"
        case .binary: return "Binary"
        case .uuid: return "UUID"
        case .uri: return "URI"
        case .transformable: return "Transformable"
        case .undefined: return "Undefined"
        }
    }

    /// The type Xcode's name stands for.
    public init?(xcodeName: String) {
        guard let type = Self.allCases.first(where: { $0.xcodeName == xcodeName }) else { return nil }
        self = type
    }

    /// The smallest and largest value of an integer type.
    public var integerRange: ClosedRange<Int64>? {
        switch self {
        case .integer16: return Int64(Int16.min)...Int64(Int16.max)
        case .integer32: return Int64(Int32.min)...Int64(Int32.max)
        case .integer: return Int64.min...Int64.max
        default: return nil
        }
    }

    /// Whether a value of this kind may be stored in an attribute of this type (the integer
    /// types all hold `.integer`, binary and transformable `.binary`; ranges are checked by
    /// `AttributeDescription.validate`).
    public func accepts(_ value: AttributeValue) -> Bool {
        switch (self, value) {
        case (.integer16, .integer), (.integer32, .integer), (.integer, .integer): return true
        case (.binary, .binary), (.transformable, .binary), (.undefined, _): return true
        case (.binary, .externalBinary), (.transformable, .externalBinary): return true
        default: return value.type == self
        }
    }

    /// Whether values of this type are ordered numbers (min/max value validation applies).
    public var isNumeric: Bool {
        switch self {
        case .integer16, .integer32, .integer, .decimal, .double, .float: return true
        default: return false
        }
    }
}
