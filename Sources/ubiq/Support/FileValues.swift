import Foundation
import Ubiquity

/// `name=@path` for binary and transformable attributes: the value is the file's bytes.
enum FileValues {
    /// The assignments with each `@path` of a binary or transformable attribute of `entity`
    /// replaced by the file's bytes (as `base64:`); other assignments unchanged.
    static func resolve(_ assignments: [PropertyAssignment], entity: EntityDescription) throws -> [PropertyAssignment] {
        try assignments.map { assignment in
            guard assignment.text.hasPrefix("@"), let attribute = entity.attribute(assignment.name),
                  attribute.type == .binary || attribute.type == .transformable else { return assignment }
            let path = GlobalOptions.absolute(String(assignment.text.dropFirst()))
            guard let data = FileManager.default.contents(atPath: path) else {
                throw CLIError("cannot read \(path) for \(entity.name).\(assignment.name)")
            }
            return PropertyAssignment(name: assignment.name, text: "base64:" + data.base64EncodedString())
        }
    }
}
