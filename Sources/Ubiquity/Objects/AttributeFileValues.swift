import Foundation
import UbiquityCore

/// `name=@path` assignments of binary and transformable attributes: the value is the file's bytes.
public enum AttributeFileValues {
    /// The assignments with each `@path` of a binary or transformable attribute of `entity`
    /// replaced by the file's bytes (as `base64:`); other assignments unchanged. A file at least
    /// `ExternalDataReference.threshold` bytes long for an attribute that allows external storage
    /// is streamed into `externalData` (never held whole in memory) and named by its reference.
    /// `absolutePath` turns the path as written into the one to read (and to name in errors).
    public static func resolve(_ assignments: [PropertyAssignment], entity: EntityDescription, externalData: ExternalDataFolder,
                               absolutePath: (String) -> String = { $0 }) throws(AttributeFileError) -> [PropertyAssignment] {
        var resolved: [PropertyAssignment] = []
        for assignment in assignments {
            guard assignment.text.hasPrefix("@"), let attribute = entity.attribute(assignment.name),
                  attribute.type == .binary || attribute.type == .transformable else {
                resolved.append(assignment)
                continue
            }
            let path = absolutePath(String(assignment.text.dropFirst()))
            let property = "\(entity.name).\(assignment.name)"
            if attribute.allowsExternalBinaryDataStorage, let size = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int,
               size >= ExternalDataReference.threshold {
                do {
                    let reference = try externalData.add(fileAt: path)
                    resolved.append(PropertyAssignment(name: assignment.name, text: "sha256:\(reference.sha256):\(reference.size)"))
                    continue
                } catch {
                    throw .unreadable(path: path, property: property, reason: "\(error)")
                }
            }
            guard let data = FileManager.default.contents(atPath: path) else { throw .unreadable(path: path, property: property, reason: nil) }
            resolved.append(PropertyAssignment(name: assignment.name, text: "base64:" + data.base64EncodedString()))
        }
        return resolved
    }
}

/// A file named by `name=@path` that cannot be read.
public enum AttributeFileError: Error, CustomStringConvertible, Equatable, Sendable {
    /// `path`, meant for `property` (`Entity.attribute`), cannot be read; `reason` when known.
    case unreadable(path: String, property: String, reason: String?)

    public var description: String {
        switch self {
        case let .unreadable(path, property, reason): "cannot read \(path) for \(property)" + (reason.map { ": \($0)" } ?? "")
        }
    }
}
