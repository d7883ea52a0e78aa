import UbiquityBase
import UbiquityCore

/// The logs and receipts visible in a ubiquity root for one content and model. Listing reads
/// names only; a log's size and time are asked of the file system when first needed (a sync
/// needs them for few logs, and a container may hold thousands).
package struct ContainerScan {
    package struct LogFile {
        package let peerID: String
        package let number: Int64
        package let name: String
        package let path: String

        package var size: Int64 { DirectoryEntry.at(path)?.size ?? 0 }
        package var modificationTime: Double { DirectoryEntry.at(path)?.modificationTime ?? 0 }
    }

    package var logs: [LogFile] = []
    /// `.nosync` files in the log folders (peer, file name): never travel, shown as Excluded.
    package var excluded: [(peerID: String, name: String)] = []
    /// Valid peer folders (holding this content and model or not).
    package var peers: [String] = []

    package init(location: ContainerLocation) {
        for folder in DirectoryEntry.list(location.ubiquityRoot) where folder.isDirectory && CloudNames.isValidPeerID(folder.name) {
            peers.append(folder.name)
            let directory = location.logDirectory(of: folder.name)
            for name in DirectoryEntry.names(directory) {
                if name.hasSuffix(".nosync") {
                    excluded.append((folder.name, name))
                    continue
                }
                guard let number = TransactionLog.transactionNumber(inFileName: name) else { continue }
                logs.append(LogFile(peerID: folder.name, number: number, name: name, path: directory + "/" + name))
            }
        }
    }

    /// Whether `peer`'s log `number` is present.
    package func has(peer: String, number: Int64) -> Bool { logs.contains { $0.peerID == peer && $0.number == number } }
}
