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
        let scan = ContainerScan(location: location, modelVersions: true)
        for folder in scan.peerFolders {
            for version in folder.contentEntries ?? [] where version.isDirectory && CloudNames.isValidPathComponent(version.name) {
                // This version's folder was listed by the scan; another's is listed here.
                let listed = version.kind == .modelFolder ? folder.entries : ContainerEntry.list(version.path, as: .logs, of: location)
                let files = listed.filter { $0.isRegularFile && $0.kind != .temporary }.compactMap { entry in entry.file.map { (entry: entry, file: $0) } }
                let highest = files.compactMap(\.entry.logNumber).max() ?? 0
                // The receipt says where the peer imports now; a log alone may be a save of an
                // earlier version written there late (after a migration, once the cloud took it).
                let receipt = files.first { $0.entry.kind == .receipt }?.file.modificationTime
                versions[version.name, default: Version(modelHash: version.name)].peers[folder.peerID] = (highest, receipt ?? 0, files.map(\.file.modificationTime).max() ?? 0)
            }
        }
        for version in ContainerEntry.list(location.baselineVersionsDirectory, as: .peerContent, of: location)
        where version.isDirectory && CloudNames.isValidPathComponent(version.name) {
            let hasFile = ContainerEntry.list(version.path, as: .baselines, of: location).contains { $0.kind == .baseline && $0.isRegularFile }
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
