import ArgumentParser
import Ubiquity

/// The `SOURCE RELATIONSHIP TARGET` arguments of `relate` and `unrelate`.
struct RelationshipLink: ParsableArguments {
    @Argument(help: "The global ID of the object that owns the relationship.")
    var source: String

    @Argument(help: "The relationship's name, e.g. tags or folder.")
    var relationship: String

    @Argument(help: "The global ID of the related object.")
    var target: String

    func change(in context: ObjectContext, present: Bool, at index: Int? = nil) throws {
        let sourceID = try GlobalID(source), targetID = try GlobalID(target)
        guard let object = try context.object(sourceID) else { throw StoreError.objectNotFound(sourceID) }
        guard let description = object.entity.relationship(relationship) else {
            throw ModelError.unknownProperty(entity: object.entity.name, property: relationship)
        }
        guard targetID.entity == description.destination else {
            throw CLIError("\(object.entity.name).\(relationship) holds \(description.destination), not \(targetID)")
        }
        guard try context.object(targetID) != nil else { throw StoreError.objectNotFound(targetID) }
        if let index {
            guard description.isToMany, description.isOrdered else { throw CLIError("--at needs an ordered to-many relationship; \(object.entity.name).\(relationship) is not one") }
            try object.insert(targetID, into: relationship, at: index)
            try context.save()
            return
        }
        switch (description.isToMany, present) {
        case (true, true): try object.add(targetID, to: relationship)
        case (true, false): try object.remove(targetID, from: relationship)
        case (false, true): try object.setTarget(targetID, of: relationship)
        case (false, false):
            guard try object.target(of: relationship) == targetID else {
                throw CLIError("\(sourceID).\(relationship) does not point to \(targetID)")
            }
            try object.setTarget(nil, of: relationship)
        }
        try context.save()
    }
}
