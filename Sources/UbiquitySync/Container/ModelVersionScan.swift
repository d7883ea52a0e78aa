import UbiquityBase
import UbiquityCore

/// The model versions present in a ubiquity root for one content: each model-hash folder with
/// the peers that wrote there (their highest transaction in it) and whether it has a baseline.
/// Listing only (names and types); nothing is read.
package struct ModelVersionScan {
    package struct Version {
        package let modelHash: String
        /// Peers with a folder of this version, each with its highest transaction there (0:
        /// receipt only) and when it last wrote there (seconds since 1970).
        package var peers: [String: (highest: Int64, lastWrite: Double)] = [:]
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
                versions[version.name, default: Version(modelHash: version.name)].peers[folder.name] = (highest, files.map(\.modificationTime).max() ?? 0)
            }
        }
        let baselines = "\(location.ubiquityRoot)/.baseline/\(location.contentName)"
        for version in location.entries(in: baselines) where version.isDirectory && CloudNames.isValidPathComponent(version.name) {
            let hasFile = location.names(in: baselines + "/" + version.name, regularFilesOnly: true).contains("baseline.zip")
            versions[version.name, default: Version(modelHash: version.name)].hasBaseline = hasFile
        }
    }

    /// The version each peer is on now: the one it last wrote into (its receipt is rewritten
    /// after every import; a migrated peer no longer writes into its old version's folder).
    package var currentVersions: [String: String] {
        var result: [String: (hash: String, lastWrite: Double)] = [:]
        for version in versions.values.sorted(by: { $0.modelHash < $1.modelHash }) {
            for (peer, activity) in version.peers where activity.lastWrite > result[peer]?.lastWrite ?? -1 {
                result[peer] = (version.modelHash, activity.lastWrite)
            }
        }
        return result.mapValues(\.hash)
    }
}
