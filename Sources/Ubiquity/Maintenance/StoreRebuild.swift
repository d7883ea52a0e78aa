import UbiquityCore
import UbiquitySync

/// What a rebuild of the account's store from the container gave.
public struct StoreRebuildReport: Sendable {
    /// Why the device is on the store it is on now (`UbiquitousStoreCoordinator.storeReason`).
    public let reason: String
    /// What the rebuilt store holds of each peer.
    public let knowledge: KnowledgeVector
    /// The model versions (hashes) that hold data in the container when this store's version
    /// holds none: the rebuild found nothing because the data is under another model.
    public let otherVersionsWithData: [String]
}

/// Why a rebuild could not be done.
public enum StoreRebuildError: Error, CustomStringConvertible, Sendable {
    /// The coordinator ended without a store (nothing to report on).
    case noStore

    public var description: String {
        switch self {
        case .noStore: return "no store"
        }
    }
}

/// Deleting the device's store of the account and making it again from the container.
public enum StoreRebuild {
    /// Rebuilds the store of `configuration`'s device from the baseline and the logs
    /// (`PeerConfiguration.rebuildFromContent`) and waits for the import to finish; transaction
    /// numbers continue where the container says this peer stopped. A store made for another
    /// model version is never replaced (the coordinator refuses it).
    public static func run(configuration: PeerConfiguration) throws -> StoreRebuildReport {
        var configuration = configuration
        configuration.rebuildFromContent = true
        let coordinator = try UbiquitousStoreCoordinator(configuration: configuration, liveImport: .off)
        defer { coordinator.close() }
        // From the deletion until the import is done, readers beside this owner say the store
        // is being rebuilt rather than read a store that is not there, or holds part of the data.
        var marked: String?
        if coordinator.device.identityToken != nil {
            let folder = try DeviceLocation(configuration, device: coordinator.device).storeFolder(kind: .account, token: coordinator.device.identityToken)
            let path = folder.storeFile(kind: .account, storeName: configuration.storeName)
            try StoreMarker.mark(path, .rebuild)
            marked = path
        }
        defer { marked.map(StoreMarker.clear) }
        try coordinator.addStore()
        try coordinator.waitForBackgroundImport()
        guard let peer = coordinator.peer else { throw StoreRebuildError.noStore }
        var others: [String] = []
        if let versions = try ModelVersionReport.make(for: peer), peer.store.knowledge.entries.isEmpty {
            others = versions.versions.filter { !$0.isThisPeers && (!$0.peersOnIt.isEmpty || $0.hasBaseline) }.map(\.modelHash)
        }
        return StoreRebuildReport(reason: coordinator.storeReason, knowledge: peer.store.knowledge, otherVersionsWithData: others)
    }
}
