/// A context that cannot follow its store to the store it was handed over to.
public enum ContextHandoverError: Error, CustomStringConvertible, Equatable, Sendable {
    /// The account changed (`reason`) while this context held unsaved changes made on the
    /// previous account's store: they never reach another account's data.
    case unsavedChangesOfPreviousAccount(reason: String)

    public var description: String {
        switch self {
        case let .unsavedChangesOfPreviousAccount(reason):
            return "\(reason): this context's unsaved changes were made on the previous account's store; call rollback() and make them again (the will-change event is the moment to save them)"
        }
    }
}
