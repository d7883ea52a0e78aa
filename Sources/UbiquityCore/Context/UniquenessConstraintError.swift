/// A save refused because two live objects would share the values of a uniqueness constraint.
/// Nothing was saved. An insert is refused only under `MergePolicy.error` (any other policy
/// merges the new object into the one holding the values); an update that makes an object
/// collide is always refused, so the app decides which object stays.
public enum UniquenessConstraintError: Error, Equatable, CustomStringConvertible, Sendable {
    /// `object` (inserted by the save) holds `values` of `constraint`, as `existing` does.
    case insertCollides(object: GlobalID, existing: GlobalID, constraint: UniquenessConstraint, values: [ConstrainedValue])
    /// `object` (changed by the save) now holds `values` of `constraint`, as `existing` does.
    case updateCollides(object: GlobalID, existing: GlobalID, constraint: UniquenessConstraint, values: [ConstrainedValue])

    public var description: String {
        switch self {
        case let .insertCollides(object, existing, constraint, values):
            "the new object \(object) has the values \(Self.text(constraint, values)) of \(existing), and entity \(constraint.scope)'s uniqueness constraint (\(constraint.properties.joined(separator: ", "))) allows one object per value (merge policy error): nothing was saved"
        case let .updateCollides(object, existing, constraint, values):
            "\(object) was changed to the values \(Self.text(constraint, values)) of \(existing), and entity \(constraint.scope)'s uniqueness constraint (\(constraint.properties.joined(separator: ", "))) allows one object per value: nothing was saved"
        }
    }

    private static func text(_ constraint: UniquenessConstraint, _ values: [ConstrainedValue]) -> String {
        zip(constraint.properties, values).map { "\($0)=\($1)" }.joined(separator: " ")
    }
}
