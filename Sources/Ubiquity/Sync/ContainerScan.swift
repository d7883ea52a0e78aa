/// The logs and receipts visible in a ubiquity root for one content and model.
struct ContainerScan {
    struct LogFile {
        let peerID: String
        let number: Int64
        let name: String
        let size: Int64
        let modificationTime: Double
    }

    var logs: [LogFile] = []
    /// `.nosync` files in the log folders (peer, file name): never travel, shown as Excluded.
    var excluded: [(peerID: String, name: String)] = []
    /// Valid peer folders (holding this content and model or not).
    var peers: [String] = []

    init(location: ContainerLocation) {
        for folder in DirectoryEntry.list(location.ubiquityRoot) where folder.isDirectory && CloudNames.isValidPeerID(folder.name) {
            peers.append(folder.name)
            for file in DirectoryEntry.list(location.logDirectory(of: folder.name)) where file.isRegularFile {
                if file.name.hasSuffix(".nosync") {
                    excluded.append((folder.name, file.name))
                    continue
                }
                guard let number = TransactionLog.transactionNumber(inFileName: file.name) else { continue }
                logs.append(LogFile(peerID: folder.name, number: number, name: file.name, size: file.size, modificationTime: file.modificationTime))
            }
        }
    }

    /// Whether `peer`'s log `number` is present.
    func has(peer: String, number: Int64) -> Bool { logs.contains { $0.peerID == peer && $0.number == number } }
}
