/// Something a person can do about a problem the library reports, kept typed so that each
/// face of the library words it in its own terms: the library names its API
/// (`description`), the `ubiq` tool names its commands.
public enum Remedy: Sendable, Equatable, CustomStringConvertible {
    /// Make a device directory.
    case createDevice
    /// Move a device to another cloud on purpose.
    case moveCloud(to: String, device: String)
    /// Give this device the content's passphrase.
    case unlockEncryption
    /// Turn encryption on for the content.
    case enableEncryption
    /// Write the content's key record again with the passphrase.
    case repairKeyRecord
    /// Migrate the store to the model the app runs (from the model it records).
    case migrateStore
    /// Migrate a store that records no model, naming the model it was made for.
    case migrateStoreFromModel
    /// Compare two model versions: whether the change can be inferred.
    case compareModels
    /// Examine the container and the device.
    case examine
    /// Open the account store: it finishes the initial import and hands the fallback over.
    case openAccountStore
    /// Run a round of sync.
    case sync
    /// Roll a new baseline now.
    case rollBaseline
    /// Collect garbage with a shorter grace period.
    case shortenGracePeriod

    /// The remedy in the library's terms, as a clause a message can hold ("call …").
    public var description: String {
        switch self {
        case .createDevice: return "call Device.create(at:)"
        case let .moveCloud(cloud, device): return "call Device.moveCloud(to: \"\(cloud)\", at: \"\(device)\")"
        case .unlockEncryption: return "call UbiquityPeer.unlockEncryption(passphrase:)"
        case .enableEncryption: return "call UbiquityPeer.enableEncryption(passphrase:)"
        case .repairKeyRecord: return "call UbiquityPeer.repairKeyRecord(passphrase:)"
        case .migrateStore: return "open it with PeerConfiguration.migratesStore on and every model version in PeerConfiguration.modelVersions"
        case .migrateStoreFromModel: return "open it with the model it was made for in PeerConfiguration.previousModels"
        case .compareModels: return "compare them with ModelDiff"
        case .examine: return "call Doctor.examine(_:)"
        case .openAccountStore: return "call UbiquitousStoreCoordinator.addStore()"
        case .sync: return "call UbiquityPeer.sync()"
        case .rollBaseline: return "call UbiquityPeer.rollBaseline(force: true)"
        case .shortenGracePeriod: return "call UbiquityPeer.collectGarbage(policy:) with a shorter grace period"
        }
    }
}
