import UbiquityBase

// The model hash (the model-version folder of the cloud, Docs/ContainerFormat.md, Docs/Models.md): it changes exactly
// when Core Data's `versionHash` of an entity would. Core Data hashes an entity's name, its
// parent's hash, whether it is abstract, its properties' hashes and its version hash modifier;
// a property's name, optionality, transience and modifier; an attribute's type; a
// relationship's destination, inverse and minimum and maximum count (which say to-one or
// to-many), and whether it is ordered. Defaults, validation rules, delete rules, renaming
// identifiers, user info and class names stay out. An entity's uniqueness constraints go in
// (Apple: "This value forms part of the entity's version hash"). Merge groups are Ubiquity's
// own and go in: they change what a log means; so does whether an attribute is derived (a
// derived attribute is not stored or logged), though not its expression. Docs/Models.md lists
// the inputs.
extension ObjectModel {
    /// The text whose SHA-256 is the model hash: every entity, attribute and relationship with
    /// the inputs above, sorted, one per line. A token is written only when it differs from
    /// the default (`abstract`, `parent`, `transient`, `required`, `ordered`, `min`, `max`,
    /// `modifier`), so a model that uses none of them keeps the hash it had before they
    /// existed. `entities` may be declared or resolved: a property an ancestor has is the
    /// ancestor's, and transient properties are listed with the others.
    public static func canonicalDescription(of entities: [EntityDescription]) -> String {
        let byName = Dictionary(entities.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        func inherited(_ entity: EntityDescription) -> (names: Set<String>, groups: [[String]], constraints: [[String]]) {
            var names: Set<String> = []
            var groups: [[String]] = []
            var constraints: [[String]] = []
            var seen: Set<String> = [entity.name]
            var ancestor = entity.parent.flatMap { byName[$0] }
            while let current = ancestor, seen.insert(current.name).inserted {
                for attribute in current.attributes + current.transientAttributes { names.insert(attribute.name) }
                for relationship in current.relationships + current.transientRelationships { names.insert(relationship.name) }
                groups += current.mergeGroups
                constraints += current.uniquenessConstraints
                ancestor = current.parent.flatMap { byName[$0] }
            }
            return (names, groups, constraints)
        }
        func modifier(_ text: String?) -> String { text.map { " modifier " + JSONValue.string($0).text() } ?? "" }
        var lines: [String] = []
        for entity in entities.sorted(by: { $0.name < $1.name }) {
            let (theirs, theirGroups, theirConstraints) = inherited(entity)
            var header = "entity \(entity.name)"
            if entity.isAbstract { header += " abstract" }
            if let parent = entity.parent { header += " parent \(parent)" }
            lines.append(header + modifier(entity.versionHashModifier))
            let attributes = (entity.attributes + entity.transientAttributes.map { var a = $0; a.isTransient = a.isTransient || a.derivation == nil; return a })
                .filter { !theirs.contains($0.name) }
            for attribute in attributes.sorted(by: { $0.name < $1.name }) {
                var line = "  attribute \(attribute.name) \(attribute.type.rawValue)"
                if attribute.isOptional { line += " optional" }
                if attribute.isTransient { line += " transient" }
                if attribute.derivation != nil { line += " derived" }
                lines.append(line + modifier(attribute.versionHashModifier))
            }
            let relationships = (entity.relationships + entity.transientRelationships.map { var r = $0; r.isTransient = true; return r })
                .filter { !theirs.contains($0.name) }
            for relationship in relationships.sorted(by: { $0.name < $1.name }) {
                var line = "  relationship \(relationship.name) \(relationship.isToMany ? "to-many" : "to-one") \(relationship.destination) inverse \(relationship.inverse ?? "-")"
                if !relationship.isOptional { line += " required" }
                if relationship.isToMany {
                    // A to-one's counts are implied (at most one; at least one when required).
                    if relationship.isOrdered { line += " ordered" }
                    if relationship.minCount > 0 { line += " min \(relationship.minCount)" }
                    if relationship.maxCount > 0 { line += " max \(relationship.maxCount)" }
                }
                if relationship.isTransient { line += " transient" }
                lines.append(line + modifier(relationship.versionHashModifier))
            }
            let ownConstraints = entity.uniquenessConstraints.filter { !theirConstraints.contains($0) }
            for constraint in ownConstraints.map({ $0.sorted() }).sorted(by: { $0.joined(separator: ",") < $1.joined(separator: ",") }) {
                lines.append("  unique \(constraint.joined(separator: ","))")
            }
            let ownGroups = entity.mergeGroups.filter { !theirGroups.contains($0) }
            for group in ownGroups.map({ $0.sorted() }).sorted(by: { $0.joined(separator: ",") < $1.joined(separator: ",") }) {
                lines.append("  group \(group.joined(separator: ","))")
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
