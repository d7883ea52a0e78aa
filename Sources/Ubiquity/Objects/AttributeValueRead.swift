import UbiquityCore

/// One attribute value of one object, with the folder an external value's bytes are read from.
public struct AttributeValueRead: Sendable {
    public let id: GlobalID
    public let attribute: String
    /// The value; `nil` when the object has none.
    public let value: AttributeValue?
    let externalData: ExternalDataFolder

    /// Reads `attribute` of the object `id` from `peer`'s store. Throws
    /// `ModelError.unknownProperty` for an attribute the entity lacks and
    /// `StoreError.objectNotFound` for an object that is not there.
    public init(_ attribute: String, of id: GlobalID, in peer: UbiquityPeer) throws {
        let entity = try peer.store.model.entity(named: id.entity)
        guard entity.attribute(attribute) != nil else { throw ModelError.unknownProperty(entity: id.entity, property: attribute) }
        guard let snapshot = try peer.store.snapshot(of: id) else { throw StoreError.objectNotFound(id) }
        self.id = id
        self.attribute = attribute
        value = snapshot.values[attribute] ?? nil
        externalData = peer.store.externalData
    }

    /// Hands the value's bytes to `emit`: binary and transformable data as they are (an external
    /// value streamed from its file a chunk at a time, so a 200 MB value never sits whole in
    /// memory), a string as UTF-8, any other value as its text.
    public func writeRaw(_ emit: ([UInt8]) -> Void) throws {
        guard let value else { throw AttributeValueReadError.noValue(property: "\(id).\(attribute)") }
        switch value {
        case let .binary(bytes): emit(bytes)
        case let .externalBinary(reference):
            do { try externalData.read(reference) { emit($0) } } catch let error as ExternalDataError {
                throw AttributeValueReadError.externalData(property: "\(id).\(attribute)", error)
            }
        case let .string(text): emit(Array(text.utf8))
        default: emit(Array(value.description.utf8))
        }
    }
}

/// Why an attribute value's bytes cannot be written.
public enum AttributeValueReadError: Error, CustomStringConvertible, Sendable {
    /// The object has no value for the attribute (`Entity/key.attribute`).
    case noValue(property: String)
    /// The external value's file is missing or does not match its reference.
    case externalData(property: String, ExternalDataError)

    public var description: String {
        switch self {
        case let .noValue(property): "\(property) has no value"
        case let .externalData(property, error): "\(property): \(error)"
        }
    }
}
