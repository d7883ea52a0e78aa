import UbiquityBase
import UbiquityCore
import UbiquitySync

/// A peer that cannot be opened or used: one case per failure, each with its message.
public enum PeerError: AdvisingError, Equatable, Sendable {
    /// A configuration option breaks Apple's rule for it (`PeerConfiguration.validate()`).
    case invalidOption(PeerOption, value: String)
    /// The coordinator was used before `addStore()`.
    case noStore
    /// Migrating the local store into the account needs the account store, which is not in use.
    case needsAccountStore
    case device(DeviceError)
    /// The cloud directory cannot be created.
    case cloudNotCreatable(path: String, reason: String)
    /// The cloud directory exists but this process cannot write into it.
    case cloudNotWritable(path: String)
    /// The container holds this peer's own logs up to `floor`, but they cannot all be imported.
    /// No longer thrown: the numbers are reserved and saves go above them (Lifecycle.md, "A
    /// device restored from a backup"); kept so code that matches on it still compiles.
    case ownLogsNotImportable(floor: Int64, knowledge: Int64)
    /// The store was made for another model version and was not migrated: the need says why and how.
    case storeNeedsMigration(StoreMigrationNeed)
    /// The store was made for another model version that cannot be migrated by inferred mapping.
    case migrationRefused(ModelMigrationError)
    /// The store cannot be walked through the model versions to the configuration's model:
    /// its version is none of them, or a step cannot be inferred (the error names it).
    case migrationWalkRefused(ModelWalkError)
    /// A peer opened read-only was asked to write (`action` says what).
    case readOnly(action: String)
    /// A peer opened read-only has nothing to read: the device never had a store of the account.
    case noAccountStore(token: String)

    public var advice: Advice {
        switch self {
        case let .invalidOption(option, value): return "\(option.rule(for: value))"
        case .noStore: return "no store added: call addStore() first"
        case .needsAccountStore: return "migrate needs the account store (signed in, initial import completed)"
        case let .device(error): return error.advice
        case let .cloudNotCreatable(path, reason): return "the cloud \(path) cannot be created: \(reason)"
        case let .cloudNotWritable(path): return "the cloud \(path) is not writable"
        case let .ownLogsNotImportable(floor, knowledge):
            return "this peer's own logs up to \(floor) cannot all be imported (knowledge stops at \(knowledge)); saving now would reuse transaction numbers — \(.examine) or repair the container"
        case let .storeNeedsMigration(need): return need.advice
        case let .migrationRefused(error): return "\(error)"
        case let .migrationWalkRefused(error): return "\(error)"
        case let .readOnly(action): return "cannot \(action): the peer was opened read-only (another process may own the device)"
        case let .noAccountStore(token): return "this device has no store of account '\(token)' yet (nothing was saved or synced there)"
        }
    }
}

/// An option of `PeerConfiguration` that `validate()` checks, with Apple's rule for it.
public enum PeerOption: String, Sendable {
    case contentName, contentURL, containerIdentifier, storeName, cloud, peerToken

    /// What is wrong with `value` for this option, and what the option takes.
    func rule(for value: String) -> String {
        let quoted = CloudNames.quoted(value)
        switch self {
        case .contentName: return "content name \(quoted) must be 1 to 100 letters, digits, '_' and '-' (no periods)"
        case .contentURL: return "content URL \(quoted) must be a relative path of valid folder names, without '.nosync'"
        case .containerIdentifier: return "container identifier \(quoted) is not a valid folder name (1 to 200 letters, digits, '.', '_', '-', '@', '+')"
        case .storeName: return "store name \(quoted) is not a valid file name (1 to 200 letters, digits, '.', '_', '-', '@', '+')"
        case .cloud: return "the cloud directory must be given"
        case .peerToken: return "peer token \(quoted) must hold only letters, digits, '.', '_', '-'"
        }
    }
}

/// Why a store made for another model version must be migrated before it is used, and how.
public enum StoreMigrationNeed: Sendable, Equatable, CustomStringConvertible {
    /// A rebuild from the container would replace the store's data with this version's state.
    case beforeRebuild(peer: String, storedHash: String, model: String, hash: String)
    /// The fallback store left by the app's previous version does not record its model.
    case fallbackModelUnknown(path: String)
    /// The store does not record the model it was made for, and the app does not give it.
    case storeModelUnknown(path: String, storedHash: String, model: String, hash: String)
    /// The change can be migrated by inferred mapping, but the configuration does not migrate.
    case migrationNotEnabled(source: String, storedHash: String, model: String, hash: String, changes: Int)

    public var description: String { advice.description }

    /// The need, its remedies typed.
    public var advice: Advice {
        switch self {
        case let .beforeRebuild(peer, stored, model, hash):
            return "the store of \(peer) was made for model version \(stored), not '\(model)' (\(hash)): rebuilding would replace its data with this version's state in the container; migrate it first (\(.migrateStore)), or rebuild with the model it was made for"
        case let .fallbackModelUnknown(path):
            return "the fallback store \(path) left by the app's previous version does not record its model; give the app its earlier model versions (PeerConfiguration.previousModels) so its saves can be handed over"
        case let .storeModelUnknown(path, stored, model, hash):
            return "the store \(path) was made for model version \(stored) and does not record that model; this model '\(model)' is \(hash). Migrate it (\(.migrateStoreFromModel)), or open it with the model it was made for"
        case let .migrationNotEnabled(source, stored, model, hash, changes):
            return "the store was made for model '\(source)' (\(stored)), not '\(model)' (\(hash)); the change can be migrated by inferred mapping (\(changes) change(s); \(.compareModels) to see them): \(.migrateStore), or open it with the model it was made for"
        }
    }
}
