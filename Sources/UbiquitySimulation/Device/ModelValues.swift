import Foundation
import Ubiquity

/// Values a random scenario writes into any model's attributes (`DEVICE mutate`): drawn within
/// the attribute's validation rules, and, for the attributes of a uniqueness constraint, taken
/// from a small pool every device shares, so that devices insert colliding values on purpose.
enum ModelValues {
    /// How many values each constrained attribute draws from.
    static let poolSize = 3

    /// A value for `attribute`, or `nil` to leave it unset (optional attributes only, some of
    /// the time; and one whose rules no drawn value meets, with no valid default).
    static func draw(_ attribute: AttributeDescription, of entity: String, using random: inout SeededGenerator) -> AttributeValue? {
        if attribute.isOptional, Int.random(in: 0..<4, using: &random) == 0 { return nil }
        let drawn = candidate(attribute, index: Int.random(in: 0..<1_000, using: &random), using: &random)
        return firstValid([drawn] + fallbacks(attribute), attribute, entity)
    }

    /// The `index`th value of a constrained attribute's pool: the same on every device.
    static func pooled(_ attribute: AttributeDescription, of entity: String, index: Int) -> AttributeValue? {
        var fixed = SeededGenerator(seed: UInt64(index))
        return firstValid([candidate(attribute, index: index, using: &fixed)] + fallbacks(attribute), attribute, entity)
    }

    /// Why an attribute of the model is never drawn, or drawn only as its default: one line each.
    static func notes(for model: ObjectModel) -> [String] {
        var notes: [String] = []
        for entity in model.declaredEntities {
            for attribute in entity.attributes where !attribute.isKeptInMemoryOnly && attribute.validation.pattern != nil {
                var probe = SeededGenerator(seed: 1)
                let drawn = candidate(attribute, index: 0, using: &probe)
                guard (try? attribute.validate(drawn, entity: entity.name)) == nil else { continue }
                let fallback = firstValid(fallbacks(attribute), attribute, entity.name)
                notes.append("\(entity.name).\(attribute.name): its pattern is not drawn; "
                    + (fallback != nil ? "the default value is written" : attribute.isOptional ? "it is left unset" : "its inserts are refused"))
            }
        }
        return notes
    }

    private static func firstValid(_ values: [AttributeValue?], _ attribute: AttributeDescription, _ entity: String) -> AttributeValue? {
        values.compactMap { $0 }.first { (try? attribute.validate($0, entity: entity)) != nil }
    }

    /// The rules' own bounds and the default: what is written when a drawn value breaks a rule.
    private static func fallbacks(_ attribute: AttributeDescription) -> [AttributeValue?] {
        [attribute.defaultValue, attribute.validation.minimum, attribute.validation.maximum]
    }

    /// A value of the attribute's type inside its minimum and maximum value or length; `index`
    /// tells pooled values apart.
    private static func candidate(_ attribute: AttributeDescription, index: Int, using random: inout SeededGenerator) -> AttributeValue? {
        let rules = attribute.validation
        switch attribute.type {
        case .string:
            let low = rules.minLength ?? 0, high = max(low, min(rules.maxLength ?? 24, low + 24))
            var text = "v\(index)"
            // Long enough to keep the index, so pooled values differ where the rules allow.
            let length = max(Int.random(in: low...high, using: &random), min(high, text.utf16.count))
            while text.utf16.count < length { text += String(UnicodeScalar(UInt8(97 + Int.random(in: 0..<26, using: &random)))) }
            return .string(String(text.prefix(length)))
        case .integer16, .integer32, .integer:
            let type = attribute.type.integerRange ?? Int64(Int32.min)...Int64(Int32.max)
            let low = max(rules.minimum?.integerValue ?? -1_000, type.lowerBound)
            let high = min(rules.maximum?.integerValue ?? 1_000, type.upperBound)
            guard low <= high else { return nil }
            return .integer(low + Int64(index) % (high - low + 1))
        case .double, .float, .decimal, .date:
            return number(attribute, index: index, using: &random)
        case .boolean:
            return .boolean(index % 2 == 0)
        case .binary, .transformable:
            let low = rules.minLength ?? 0, high = max(low, min(rules.maxLength ?? 32, low + 32))
            return .binary((0..<Int.random(in: low...high, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) })
        case .uuid:
            return .uuid(NameBasedUUID.make([.string("value"), .integer(Int64(index))]))
        case .uri:
            return .uri(URL(string: "https://example.com/\(index)")!)
        case .undefined:
            return nil
        }
    }

    /// A floating-point, decimal or date value between the rules' bounds (±1000, or a year of
    /// dates from 2013-09-18, without them).
    private static func number(_ attribute: AttributeDescription, index: Int, using random: inout SeededGenerator) -> AttributeValue? {
        func bound(_ value: AttributeValue?) -> Double? {
            switch value {
            case let .double(number)?, let .date(number)?: return number
            case let .float(number)?: return Double(number)
            case let .decimal(number)?: return Double(number.description)
            case let .integer(number)?: return Double(number)
            default: return nil
            }
        }
        let isDate = attribute.type == .date
        let low = bound(attribute.validation.minimum) ?? (isDate ? 1_379_462_400 : -1_000)
        let high = bound(attribute.validation.maximum) ?? (isDate ? low + 31_536_000 : max(low, 0) + 1_000)
        guard low <= high else { return nil }
        let fraction = Double(index % 1_000) / 1_000
        // Rounded to hundredths, so decimal and float values travel exactly.
        let value = min(high, max(low, ((low + (high - low) * fraction) * 100).rounded() / 100))
        switch attribute.type {
        case .double: return .double(value)
        case .float: return .float(Float(value))
        case .date: return .date(secondsSince1970: value.rounded())
        default: return DecimalNumber(String(format: "%.2f", value)).map { .decimal($0) }
        }
    }
}
