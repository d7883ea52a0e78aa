import UbiquityBase
import UbiquityCore

/// The model versions present in a ubiquity root for one content: each model-hash folder with
/// the peers that wrote there (their highest transaction in it) and whether it has a baseline.
/// Listing only (names and types); nothing is read.
package struct ModelVersionScan {
    package struct Version {
        package let modelHash: String
        /// Peers with a folder of this version, each with its highest transaction there (0:
        /// receipt only), when it last wrote its receipt there (0: none) and when it last wrote
        /// any file there (seconds since 1970).
        package var peers: [String: (highest: Int64, receiptWrite: Double, lastWrite: Double)] = [:]
        package var hasBaseline = false
    }

    /// By model hash.
    package private(set) var versions: [String: Version] = [:]

    package init(location: ContainerLocation) {
        for folder in DirectoryEntry.list(location.ubiquityRoot) where folder.isDirectory && CloudNames.isValidPeerID(folder.name) {
            let content = "\(location.ubiquityRoot)/\(folder.name)/\(location.contentName)"
            for version in location.entries(in: content) where version.isDirectory && CloudNames.isValidPathComponent(version.name) {
                let files = location.entries(in: content + "/" + version.name).filter { $0.isRegularFile && !$0.name.hasSuffix(".nosync") }
                let highest = files.compactMap { TransactionLog.transactionNumber(inFileName: $0.name) }.max() ?? 0
                // The receipt says where the peer imports now; a log alone may be a save of an
                // earlier version written there late (after a migration, once the cloud took it).
                let receipt = files.first { $0.name == "receipt.0.cdt" }?.modificationTime
                versions[version.name, default: Version(modelHash: version.name)].peers[folder.name] = (highest, receipt ?? 0, files.map(\.modificationTime).max() ?? 0)
            }
        }
        let baselines = "\(location.ubiquityRoot)/.baseline/\(location.contentName)"
        for version in location.entries(in: baselines) where version.isDirectory && CloudNames.isValidPathComponent(version.name) {
            let hasFile = location.names(in: baselines + "/" + version.name, regularFilesOnly: true).contains("baseline.zip")
            versions[version.name, default: Version(modelHash: version.name)].hasBaseline = hasFile
        }
    }

    /// The version each peer is on now: the one whose receipt it wrote last (it rewrites its
    /// receipt after imports; a migrated peer writes none into its old version's folder), or,
    /// for a peer without a receipt, the one it last wrote into.
    package var currentVersions: [String: String] {
        var result: [String: (hash: String, when: (Double, Double))] = [:]
        for version in versions.values.sorted(by: { $0.modelHash < $1.modelHash }) {
            for (peer, activity) in version.peers {
                let when = (activity.receiptWrite, activity.lastWrite)
                if let known = result[peer], !(when > known.when) { continue }
                result[peer] = (version.modelHash, when)
            }
        }
        return result.mapValues(\.hash)
    }
}
