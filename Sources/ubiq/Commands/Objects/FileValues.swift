import Foundation
import Ubiquity

/// `name=@path` for binary and transformable attributes: the value is the file's bytes.
enum FileValues {
    /// The assignments with each `@path` of a binary or transformable attribute of `entity`
    /// replaced by the file's bytes (as `base64:`); other assignments unchanged. A file at least
    /// `ExternalDataReference.threshold` bytes long for an attribute that allows external storage
    /// is streamed into `externalData` (never held whole in memory) and named by its reference.
    static func resolve(_ assignments: [PropertyAssignment], entity: EntityDescription, externalData: ExternalDataFolder) throws -> [PropertyAssignment] {
        try assignments.map { assignment in
            guard assignment.text.hasPrefix("@"), let attribute = entity.attribute(assignment.name),
                  attribute.type == .binary || attribute.type == .transformable else { return assignment }
            let path = GlobalOptions.absolute(String(assignment.text.dropFirst()))
            if attribute.allowsExternalBinaryDataStorage, let size = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int,
               size >= ExternalDataReference.threshold {
                do {
                    let reference = try externalData.add(fileAt: path)
                    return PropertyAssignment(name: assignment.name, text: "sha256:\(reference.sha256):\(reference.size)")
                } catch {
                    throw CLIError("cannot read \(path) for \(entity.name).\(assignment.name): \(error)")
                }
            }
            guard let data = FileManager.default.contents(atPath: path) else {
                throw CLIError("cannot read \(path) for \(entity.name).\(assignment.name)")
            }
            return PropertyAssignment(name: assignment.name, text: "base64:" + data.base64EncodedString())
        }
    }
}
