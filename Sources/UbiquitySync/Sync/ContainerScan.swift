import UbiquityBase
import UbiquityCore

/// The logs and receipts visible in a ubiquity root for one content and model. Listing reads
/// names and the types `readdir` tells (only regular files count: a folder or link named like a
/// log is none); a log's size and time are asked of the file system when first needed (a sync
/// needs them for few logs, and a container may hold thousands).
package struct ContainerScan {
    package struct LogFile {
        package let peerID: String
        package let number: Int64
        package let name: String
        package let path: String

        /// The file's metadata now (`nil` when it is gone).
        package var file: DirectoryEntry? { DirectoryEntry.at(path) }
        package var size: Int64 { file?.size ?? 0 }
        package var modificationTime: Double { file?.modificationTime ?? 0 }
    }

    package var logs: [LogFile] = []
    /// `.nosync` files in the log folders (peer, file name): never travel, shown as Excluded.
    package var excluded: [(peerID: String, name: String)] = []
    /// Valid peer folders (holding this content and model or not).
    package var peers: [String] = []
    /// The transaction numbers present, by peer.
    private var numbers: [String: Set<Int64>] = [:]

    package init(location: ContainerLocation) {
        for folder in DirectoryEntry.list(location.ubiquityRoot) where folder.isDirectory && CloudNames.isValidPeerID(folder.name) {
            peers.append(folder.name)
            let directory = location.logDirectory(of: folder.name)
            for name in location.names(in: directory, regularFilesOnly: true) {
                if name.hasSuffix(".nosync") {
                    excluded.append((folder.name, name))
                    continue
                }
                guard let number = TransactionLog.transactionNumber(inFileName: name) else { continue }
                logs.append(LogFile(peerID: folder.name, number: number, name: name, path: directory + "/" + name))
                numbers[folder.name, default: []].insert(number)
            }
        }
    }

    /// Whether `peer`'s log `number` is present.
    package func has(peer: String, number: Int64) -> Bool { numbers[peer]?.contains(number) ?? false }
}
