import UbiquityCore

/// Which of a device's stores a peer works on.
public enum StoreKind: String, Sendable, Equatable, Codable {
    /// The store of the signed-in account; syncs through the cloud.
    case account
    /// A temporary store used while the account's initial import runs; never syncs.
    case fallback
    /// The store used while signed out; never syncs.
    case local
}

/// Why the stores change (Core Data's `NSPersistentStoreUbiquitousTransitionType`).
public enum StoreTransition: Int, Sendable, Equatable, CustomStringConvertible {
    case accountAdded = 1
    case accountRemoved = 2
    case contentRemoved = 3
    case initialImportCompleted = 4

    public var description: String {
        switch self {
        case .accountAdded: return "accountAdded(1)"
        case .accountRemoved: return "accountRemoved(2)"
        case .contentRemoved: return "contentRemoved(3)"
        case .initialImportCompleted: return "initialImportCompleted(4)"
        }
    }
}

/// What a coordinator tells its subscribers, in order.
public enum CoordinatorEvent: Sendable, Equatable, CustomStringConvertible {
    /// The stores are about to change: the app's last chance to save to the current store.
    case storesWillChange(StoreTransition)
    /// The stores changed. `nil` transition: a store was added (at launch, or the fallback).
    case storesDidChange(StoreTransition?, now: StoreKind)
    /// Other peers' changes were imported into the account store.
    case didImport(ObjectChanges)
    /// The store was made for another model version and was migrated before it was added
    /// (posted before the did-change that adds it).
    case storeMigrated(ModelMigration)

    public var description: String {
        switch self {
        case let .storesWillChange(transition): return "will-change \(transition)"
        case let .storesDidChange(transition, kind): return "did-change \(transition.map(\.description) ?? "store added") → \(kind.rawValue) store"
        case let .didImport(changes): return "did-import \(changes.inserted.count) inserted, \(changes.updated.count) updated, \(changes.deleted.count) deleted"
        case let .storeMigrated(migration): return "store-migrated \(migration.sourceHash) → \(migration.destinationHash)"
        }
    }
}
