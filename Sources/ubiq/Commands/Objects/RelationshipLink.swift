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
        do {
            try context.relate(try GlobalID(source), relationship, try GlobalID(target), present: present, at: index)
        } catch let RelationshipEditError.notOrderedToMany(entity, relationship) {
            throw CLIError("--at needs an ordered to-many relationship; \(entity).\(relationship) is not one")
        }
    }
}
