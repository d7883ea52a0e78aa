import UbiquityCore

/// A recorded conflict that cannot be resolved as asked (`UbiquityPeer.restoreLoser(ofConflict:)`).
public enum ConflictResolutionError: Error, CustomStringConvertible, Equatable, Sendable {
    /// The conflict history holds no conflict with this ID (never recorded, or pruned).
    case unknownConflict(Int64)
    /// The loser was a delete (or the winner was): there is no value to save again.
    case deleteConflict(object: GlobalID, property: String)

    public var description: String {
        switch self {
        case let .unknownConflict(id): return "no conflict \(id) in the history"
        case let .deleteConflict(object, property):
            return "conflict on \(object).\(property) was with a delete; restore the object by inserting it again"
        }
    }
}
