/// A store that cannot be opened or used as asked: one case per failure, each with its message.
public enum StoreError: Error, CustomStringConvertible, Equatable, Sendable {
    case modelMismatch(store: String, model: String)
    case peerMismatch(store: String, peer: String)
    case schemaMismatch(String)
    case objectExists(GlobalID)
    case objectNotFound(GlobalID)
    case deleteDenied(object: GlobalID, relationship: String, count: Int)
    /// The store was handed over for good, or its handover failed: `reason` says which.
    case retired(String)
    /// The store is being handed over (`reason`) and the handover did not finish in `seconds`.
    case handoverTimedOut(reason: String, seconds: Int)
    /// The store was opened read-only: it takes no saves.
    case readOnly
    /// The store's coordinator or peer was closed: nothing can be read or saved through it any
    /// more (open the device again).
    case closed
    /// A store opened read-only does not exist (or was never set up): nothing was saved there yet.
    case missing(String)
    /// A store opened read-only is not there yet: its owner is making it (`StoreMarker`).
    case beingCreated(String)
    /// A store opened read-only is being replaced by its owner (rebuilt or migrated): it is read
    /// once that is done.
    case beingReplaced(String, StoreReplacement)
    /// A store opened read-only kept failing to read while its owner replaced its files.
    case unsettled(String)
    /// A save refers, through a relationship, to an object that neither the store nor the save holds.
    case missingTarget(object: GlobalID, relationship: String, target: GlobalID)
    /// A log was handed to the store out of causal order (a bug in the caller, never in the cloud).
    case notApplicable(peer: String, number: Int64)
    /// A log stamped more than `Stamp.maximumLead` ahead of this machine's clock reached the
    /// store (the importer refuses such logs first): its stamp is never adopted.
    case stampTooFarAhead(peer: String, number: Int64, stamp: Stamp)
    /// A value names an external data file this store's folder does not hold.
    case missingExternalData(entity: String, attribute: String, sha256: String)

    public var description: String {
        switch self {
        case let .modelMismatch(store, model): return "the store was made for model \(store), not \(model)"
        case let .peerMismatch(store, peer): return "the store belongs to peer \(store), not \(peer)"
        case let .schemaMismatch(version): return "the store has schema version \(version); this build reads \(StoreSchema.version)"
        case let .objectExists(id): return "an object \(id) already exists"
        case let .objectNotFound(id): return "no object \(id)"
        case let .deleteDenied(object, relationship, count):
            return "cannot delete \(object): its relationship '\(relationship)' still holds \(count) object(s) (delete rule deny)"
        case let .retired(reason): return "this store no longer takes saves: \(reason)"
        case let .handoverTimedOut(reason, seconds): return "this store no longer takes saves: \(reason) (the handover did not finish in \(seconds) s)"
        case .readOnly: return "this store was opened read-only: it takes no saves"
        case .closed: return "the store was closed (its coordinator or peer was closed): open the device again to use it"
        case let .missing(path): return "no store at \(path) yet (nothing was saved or synced there)"
        case let .beingCreated(path): return "the store at \(path) is being created by the process that owns the device; try again in a moment"
        case let .beingReplaced(path, replacement): return "the store at \(path) is \(replacement.words) by the process that owns the device; try again when it is done"
        case let .unsettled(path): return "the store at \(path) kept changing while it was read (the process that owns the device is replacing its files); try again"
        case let .missingTarget(object, relationship, target):
            return "\(object).\(relationship) refers to \(target), which does not exist: insert it first (or in the same save), or sync if another peer made it"
        case let .notApplicable(peer, number): return "transaction \(number) of \(peer) is not the next applicable one"
        case let .stampTooFarAhead(peer, number, stamp):
            return "transaction \(number) of \(peer) is stamped \(stamp.description.prefix(25)), more than \(Int(Stamp.maximumLead / 3600)) hours ahead of this machine's clock"
        case let .missingExternalData(entity, attribute, sha256):
            return "\(entity).\(attribute) names external data \(sha256) that this store does not hold (add it with PersistentStore.externalData first)"
        }
    }
}
