/// The saved state of one live object, as read from a store.
public struct ObjectSnapshot: Sendable, Equatable {
    public let id: GlobalID
    /// Every attribute; `nil` for an absent value.
    public let values: [String: AttributeValue?]
    /// Every to-one relationship; `nil` when empty or when its target is not alive.
    public let toOne: [String: GlobalID?]
    /// Changes each time the object's row changes in this store (local saves and imports).
    public let version: Int64
}
