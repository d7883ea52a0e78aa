extension DerivationExpression {
    /// Checks that the expression reaches stored properties of `entity` (relationships looked
    /// up with `entityNamed`) and yields a value of `attribute`'s type, as Core Data checks a
    /// derivation when the model loads.
    func check(for attribute: AttributeDescription, in entity: EntityDescription,
               entityNamed: (String) -> EntityDescription?) throws(DerivationExpressionError) {
        let type = attribute.type
        switch self {
        case .now:
            guard type == .date else { throw .init("is now(), which gives a Date, for an attribute of type \(type.xcodeName)") }
        case let .keyPath(path):
            let holder = try Self.follow(path.dropLast(), from: entity, entityNamed: entityNamed, toManyLast: false)
            let source = try Self.storedAttribute(path.last!, of: holder)
            guard Self.fits(source.type, in: type) else {
                throw .init("names \(holder.name).\(source.name), of type \(source.type.xcodeName), for an attribute of type \(type.xcodeName)")
            }
        case let .count(path):
            _ = try Self.follow(path, from: entity, entityNamed: entityNamed, toManyLast: true)
            guard type.isInteger else { throw .init("counts objects, an integer, for an attribute of type \(type.xcodeName)") }
        case let .aggregate(aggregate, path, attributeName):
            let objects = try Self.follow(path, from: entity, entityNamed: entityNamed, toManyLast: true)
            let source = try Self.storedAttribute(attributeName, of: objects)
            let ordered = source.type.isNumeric || (aggregate == .min || aggregate == .max) && source.type == .date
            guard ordered else { throw .init("applies @\(aggregate.rawValue) to \(objects.name).\(source.name), of type \(source.type.xcodeName)") }
            let fitting = aggregate == .min || aggregate == .max ? Self.fits(source.type, in: type) : type.isNumeric
            guard fitting else { throw .init("gives a value of type \(source.type.xcodeName), for an attribute of type \(type.xcodeName)") }
        case let .function(function, path):
            let holder = try Self.follow(path.dropLast(), from: entity, entityNamed: entityNamed, toManyLast: false)
            let source = try Self.storedAttribute(path.last!, of: holder)
            guard source.type == .string, type == .string else {
                throw .init("applies \(function.rawValue): to \(holder.name).\(source.name), of type \(source.type.xcodeName), for an attribute of type \(type.xcodeName): it takes and gives a String")
            }
        }
    }

    /// Walks relationships from `entity`: each a to-one, except the last when `toManyLast`.
    private static func follow<S: Collection>(_ path: S, from entity: EntityDescription, entityNamed: (String) -> EntityDescription?,
                                              toManyLast: Bool) throws(DerivationExpressionError) -> EntityDescription
    where S.Element == String {
        var current = entity
        for (offset, name) in path.enumerated() {
            guard let relationship = current.relationship(name) else {
                throw .init("names '\(name)', which is no relationship of \(current.name)")
            }
            let last = offset == path.count - 1
            if relationship.isToMany != (toManyLast && last) {
                throw .init(relationship.isToMany
                    ? "goes through the to-many relationship \(current.name).\(name): count it (\(name).@count) or aggregate it (\(name).@sum.x)"
                    : "applies a collection operator to the to-one relationship \(current.name).\(name)")
            }
            guard let destination = entityNamed(relationship.destination) else {
                throw .init("names '\(name)', whose destination \(relationship.destination) is no entity")
            }
            current = destination
        }
        return current
    }

    /// A derivation reads stored values only: another derived or transient attribute holds none
    /// a peer could agree on.
    private static func storedAttribute(_ name: String, of entity: EntityDescription) throws(DerivationExpressionError) -> AttributeDescription {
        if let attribute = entity.attribute(name) { return attribute }
        if entity.transientAttribute(name) != nil { throw .init("names \(entity.name).\(name), which is not stored") }
        throw .init("names '\(name)', which is no attribute of \(entity.name)")
    }

    /// Whether a value of `source` type may be the value of an attribute of `target` type:
    /// the same type, integers of any width alike.
    private static func fits(_ source: AttributeType, in target: AttributeType) -> Bool {
        source == target || source.isInteger && target.isInteger
    }
}

extension AttributeType {
    fileprivate var isInteger: Bool { self == .integer16 || self == .integer32 || self == .integer }
}

extension AttributeDescription {
    /// The derivation parsed, for a derived attribute of a loaded model (whose derivations
    /// were checked when it loaded).
    public var derivationExpression: DerivationExpression? {
        derivation.flatMap { try? DerivationExpression(parsing: $0) }
    }
}
