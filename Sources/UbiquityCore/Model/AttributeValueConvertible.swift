import Foundation

/// A Swift value that is an attribute value (`ManagedObject.set(_:_:)` takes these).
public protocol AttributeValueConvertible {
    var attributeValue: AttributeValue { get }
}

extension AttributeValue: AttributeValueConvertible {
    public var attributeValue: AttributeValue { self }
}

extension String: AttributeValueConvertible {
    public var attributeValue: AttributeValue { .string(self) }
}

extension Int: AttributeValueConvertible {
    public var attributeValue: AttributeValue { .integer(Int64(self)) }
}

extension Int64: AttributeValueConvertible {
    public var attributeValue: AttributeValue { .integer(self) }
}

extension Int32: AttributeValueConvertible {
    public var attributeValue: AttributeValue { .integer(Int64(self)) }
}

extension Int16: AttributeValueConvertible {
    public var attributeValue: AttributeValue { .integer(Int64(self)) }
}

extension Bool: AttributeValueConvertible {
    public var attributeValue: AttributeValue { .boolean(self) }
}

extension Double: AttributeValueConvertible {
    public var attributeValue: AttributeValue { .double(self) }
}

extension Float: AttributeValueConvertible {
    public var attributeValue: AttributeValue { .float(self) }
}

extension DecimalNumber: AttributeValueConvertible {
    public var attributeValue: AttributeValue { .decimal(self) }
}

extension Date: AttributeValueConvertible {
    public var attributeValue: AttributeValue { .date(secondsSince1970: timeIntervalSince1970) }
}

extension Data: AttributeValueConvertible {
    public var attributeValue: AttributeValue { .binary(Array(self)) }
}

extension UUID: AttributeValueConvertible {
    public var attributeValue: AttributeValue { .uuid(self) }
}

extension URL: AttributeValueConvertible {
    public var attributeValue: AttributeValue { .uri(self) }
}
