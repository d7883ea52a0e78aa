import Foundation

extension EntityDescription {
    /// Values that make a valid new object of this entity from nothing but a label: the label
    /// in the first string attribute (so objects are recognizable), and a made-up value for
    /// every other required attribute without a default, within its minimum value or length.
    /// Load tests and scenarios use it, so any model's entity can be filled (a label its
    /// attribute's rules refuse gives way to a made-up value; a regular expression cannot be
    /// satisfied from nothing).
    public func sampleValues(label: String) -> [(name: String, value: AttributeValue)] {
        var values: [(name: String, value: AttributeValue)] = []
        let labelled = attributes.first { $0.type == .string }?.name
        for attribute in attributes {
            if attribute.name == labelled, (try? attribute.validate(.string(label), entity: name)) != nil {
                values.append((attribute.name, .string(label)))
            } else if attribute.name == labelled || (!attribute.isOptional && attribute.defaultValue == nil) {
                values.append((attribute.name, Self.placeholder(attribute)))
            }
        }
        return values
    }

    private static func placeholder(_ attribute: AttributeDescription) -> AttributeValue {
        let rules = attribute.validation
        if let minimum = rules.minimum { return minimum }
        switch attribute.type {
        case .string: return .string(String(repeating: "x", count: rules.minLength ?? 0))
        case .binary, .transformable: return .binary(Array(repeating: 0, count: rules.minLength ?? 0))
        default:
            // Zero, or the maximum when zero is above it.
            let zero = placeholder(attribute.type)
            if let maximum = rules.maximum, AttributeDescription.compare(zero, maximum) == .greater { return maximum }
            return zero
        }
    }

    /// The first string attribute: where a label goes.
    public var labelAttribute: String? { attributes.first { $0.type == .string }?.name }

    private static func placeholder(_ type: AttributeType) -> AttributeValue {
        switch type {
        case .string: return .string("")
        case .integer16, .integer32, .integer: return .integer(0)
        case .decimal: return .decimal(.zero)
        case .double: return .double(0)
        case .float: return .float(0)
        case .boolean: return .boolean(false)
        case .date: return .date(secondsSince1970: 0)
        case .binary, .transformable, .undefined: return .binary([])
        case .uuid: return .uuid(UUID(uuidString: "00000000-0000-0000-0000-000000000000")!)
        case .uri: return .uri(URL(string: "about:blank")!)
        }
    }
}
