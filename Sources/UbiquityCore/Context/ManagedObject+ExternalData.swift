import Foundation
import UbiquityBase

// Large binary values to and from files, never whole in memory (Docs/ContainerFormat.md,
// "External binary data").
extension ManagedObject {
    /// Sets a binary attribute to the contents of the file at `url`. For an attribute that
    /// allows external storage and a file of at least `ExternalDataReference.threshold` bytes,
    /// the file is streamed into the store's external data folder (hashed as it is copied) and
    /// the value is its reference; otherwise the bytes are read and set inline.
    public func setValue(contentsOf url: URL, for attribute: String) throws {
        guard let description = entity.attribute(attribute), description.type == .binary || description.type == .transformable else {
            throw ModelError.unknownProperty(entity: entity.name, property: attribute)
        }
        guard let size = (try? FileManager.default.attributesOfItem(atPath: url.path))?[.size] as? Int else {
            throw FileError(path: url.path, operation: "read", message: "no such file")
        }
        if description.allowsExternalBinaryDataStorage, size >= ExternalDataReference.threshold {
            try setValue(.externalBinary(try context.store.externalData.add(fileAt: url.path)), for: attribute)
        } else {
            try setValue(.binary(try AtomicFile.read(url.path, limit: max(size, ExternalDataReference.threshold), followingLinks: true)), for: attribute)
        }
    }

    /// Writes a binary attribute's bytes to `url` (atomically, a chunk at a time for an
    /// external value). Throws `ExternalDataError.missing` when an external value's file has
    /// not arrived on this device yet; writes an empty file for an absent value.
    public func writeValue(of attribute: String, to url: URL) throws {
        let value = try value(for: attribute)
        let folder = context.store.externalData
        try StreamingFile.write(to: url.path) { write in
            switch value {
            case let .externalBinary(reference)?: try folder.read(reference, write)
            case let .binary(bytes)?: try write(bytes)
            case nil: break
            case let other?: throw ValidationError.wrongType(entity: entity.name, property: attribute, expected: .binary, found: other.type)
            }
        }
    }
}
