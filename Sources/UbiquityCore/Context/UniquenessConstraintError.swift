/// A save refused because two live objects would share the values of a uniqueness constraint.
/// Nothing was saved. An insert is refused only under `MergePolicy.error` (any other policy
/// merges the new object into the one holding the values); an update that makes an object
/// collide is always refused, so the app decides which object stays.
public enum UniquenessConstraintError: Error, Equatable, CustomStringConvertible, Sendable {
    /// `object` (inserted by the save) holds `values` of `constraint`, as `existing` does.
    case insertCollides(object: GlobalID, existing: GlobalID, constraint: UniquenessConstraint, values: [ConstrainedValue])
    /// `object` (changed by the save) now holds `values` of `constraint`, as `existing` does.
    case updateCollides(object: GlobalID, existing: GlobalID, constraint: UniquenessConstraint, values: [ConstrainedValue])
    /// `object` (inserted by the save) would become `existing`, an object of another entity of
    /// the constraint's scope, but `relationship` (`Entity.name`), set by the save to or from
    /// `object`, cannot hold an object of `existing`'s entity: whatever the merge policy, the
    /// app decides (it inserts the entity the stored object has, or changes the value).
    case insertCollidesWithOtherEntity(object: GlobalID, existing: GlobalID, relationship: String)

    public var description: String {
        switch self {
        case let .insertCollides(object, existing, constraint, values):
            "the new object \(object) has the values \(Self.text(constraint, values)) of \(existing), and entity \(constraint.scope)'s uniqueness constraint (\(constraint.properties.joined(separator: ", "))) allows one object per value (merge policy error): nothing was saved"
        case let .updateCollides(object, existing, constraint, values):
            "\(object) was changed to the values \(Self.text(constraint, values)) of \(existing), and entity \(constraint.scope)'s uniqueness constraint (\(constraint.properties.joined(separator: ", "))) allows one object per value: nothing was saved"
        case let .insertCollidesWithOtherEntity(object, existing, relationship):
            "the new object \(object) has the constrained values of \(existing), an object of another entity, and would become it, but \(relationship) cannot hold a \(existing.entity): nothing was saved"
        }
    }

    private static func text(_ constraint: UniquenessConstraint, _ values: [ConstrainedValue]) -> String {
        zip(constraint.properties, values).map { "\($0)=\($1)" }.joined(separator: " ")
    }
}
