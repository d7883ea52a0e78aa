/// A part of a model that may carry the name it had in an earlier version (Core Data's
/// `renamingIdentifier`): an entity, an attribute or a relationship.
protocol RenamableDescription {
    var name: String { get }
    var renamingIdentifier: String? { get }
}

extension EntityDescription: RenamableDescription {}
extension AttributeDescription: RenamableDescription {}
extension RelationshipDescription: RenamableDescription {}

extension RenamableDescription {
    /// What this part was in `before` (the previous version), where `after` holds it and its
    /// siblings: the part of the same name — unless a sibling claims that name as its old one, so
    /// a swap of names is read as two renames — or else the part its renaming identifier names.
    func previousVersion(in before: [Self], siblings after: [Self]) -> Self? {
        let nameTaken = after.contains { $0.name != name && $0.renamingIdentifier == name }
        if !nameTaken, let same = before.first(where: { $0.name == name }) { return same }
        return renamingIdentifier.flatMap { renamed in before.first { $0.name == renamed } }
    }
}
