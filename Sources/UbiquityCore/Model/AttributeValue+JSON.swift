import Foundation
import UbiquityBase

extension AttributeValue {
    /// The value in JSON: dates as seconds since 1970, binary data as base64, UUIDs and URIs as
    /// strings, decimals as their exact text (a JSON number would pass through a reader's
    /// double), floats as the double they widen to.
    public var jsonValue: JSONValue {
        switch self {
        case let .string(v): return .string(v)
        case let .integer(v): return .int(v)
        case let .decimal(v): return .string(v.description)
        case let .double(v): return .double(v)
        case let .float(v): return .double(Double(v))
        case let .boolean(v): return .bool(v)
        case let .date(v): return .double(v)
        case let .binary(v): return .string(Data(v).base64EncodedString())
        case let .externalBinary(reference): return .object(["externalData": .string(reference.sha256), "size": .int(reference.size)])
        case let .uuid(v): return .string(v.uuidString)
        case let .uri(v): return .string(v.absoluteString)
        }
    }
}

extension Optional where Wrapped == AttributeValue {
    public var jsonValue: JSONValue { self?.jsonValue ?? .null }
}
