/// A save refused under `MergePolicy.error`: objects the context changed also changed in the
/// store. Nothing was saved.
public struct MergeConflictsError: Error, CustomStringConvertible, Sendable {
    public let conflicts: [MergeConflict]

    public var description: String {
        "the save conflicts with changes in the store (merge policy error), nothing was saved:\n" + conflicts.map { "  \($0)" }.joined(separator: "\n")
    }
}
