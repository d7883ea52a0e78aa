import UbiquitySync

/// What the last check found of this peer's transaction numbers in the container
/// (UbiquityPeer+OwnNumbers.swift), part by part, with the followers that tell which parts
/// changed since: a check reads again only those. Every save's export checks, and mostly
/// nothing changed but the peer's own last log: listing every peer's folder and the baselines
/// each time would cost more than the save itself. Used under the peer's sync lock (or before
/// anything else may use the peer).
final class OwnNumbersMemo {
    /// What the parts were read under: when any of it changes, every part is read again.
    struct Context: Equatable {
        let epoch: String?
        let quarantineChanges: UInt64
        let sealing: ContentSealing.State
    }

    /// The own log folder, followed name by name: this peer writes into it at every save.
    let ownFolder: FolderFollower
    /// The ubiquity root and every other peer's log folder (their receipts).
    let receiptFolders: FolderFollower
    /// The baseline folder.
    let baselineFolder: FolderFollower
    var context: Context?
    /// The highest number of the own logs of this content epoch in the own folder, when it
    /// lay above the numbers the store had taken at that listing; else 0.
    var ownLogs: Int64 = 0
    /// What each other peer's receipt knows of this peer, by the log folder it lies in.
    var receipts: [String: (peerID: String, knows: Int64)] = [:]
    /// The folders followed for them: the ubiquity root (where peers come) and those log folders.
    var receiptLeaves: Set<String> = []
    /// What this peer's own receipt knows of it.
    var ownReceipt: Int64 = 0
    /// What the baselines hold of this peer.
    var baselineView: Int64 = 0

    init(location: ContainerLocation, peerID: String) {
        ownFolder = FolderFollower(root: location.ubiquityRoot, naming: location.logDirectory(of: peerID))
        receiptFolders = FolderFollower(root: location.ubiquityRoot)
        baselineFolder = FolderFollower(root: location.ubiquityRoot)
    }

    /// The highest own number the parts know of, with `taken` the highest the store took: an
    /// own log at or below it is one of this store's.
    func floor(taken: Int64) -> Int64 {
        max(ownLogs > taken ? ownLogs : 0, receipts.values.lazy.map(\.knows).max() ?? 0, ownReceipt, baselineView)
    }
}
