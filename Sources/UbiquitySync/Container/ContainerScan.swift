import UbiquityBase
import UbiquityCore

/// The container as one content and model see it, listed once and classified once
/// (`ContainerEntry`): the ubiquity root, each peer's log folder and, when asked, each peer's
/// content folder (its model versions). Listing reads names and the types `readdir` tells (only
/// regular files count as logs: a folder or link named like a log is none); a file's size and
/// time are asked of the file system when first needed (a sync needs them for few logs, and a
/// container may hold thousands). Import, doctor, garbage collection, status, `ubiq watch` and
/// the scenario checks all read the container through here.
package struct ContainerScan {
    package struct LogFile: Sendable {
        package let peerID: String
        package let number: Int64
        package let name: String
        /// The log folder it lies in, opened at the first question about one of its files.
        package let folder: OpenFolder
        /// The log folder it lies in (absolute).
        package var directory: String { folder.path }

        /// Absolute path (made when asked: most logs of a scan are judged by number alone).
        package var path: String { directory + "/" + name }

        /// The file's metadata now (`nil` when it is gone), asked of its open folder: a sync
        /// asks for the size or age of many logs of one folder.
        package var file: DirectoryEntry? { folder.entry(name) }
        package var size: Int64 { file?.size ?? 0 }
        package var modificationTime: Double { file?.modificationTime ?? 0 }

        /// `file` of each of `logs`, in order, the logs of each folder asked of it together
        /// (`OpenFolder.entries`: one look at a watch's events for them all).
        package static func files(_ logs: [LogFile]) -> [DirectoryEntry?] {
            var files = [DirectoryEntry?](repeating: nil, count: logs.count)
            var byFolder: [ObjectIdentifier: (folder: OpenFolder, indices: [Int])] = [:]
            for (index, log) in logs.enumerated() { byFolder[ObjectIdentifier(log.folder), default: (log.folder, [])].indices.append(index) }
            for (folder, indices) in byFolder.values {
                for (index, file) in zip(indices, folder.entries(indices.map { logs[$0].name })) { files[index] = file }
            }
            return files
        }

        /// `modificationTime` of each of `logs`, by path.
        package static func modificationTimes(_ logs: [LogFile]) -> [String: Double] {
            Dictionary(zip(logs.map(\.path), files(logs).map { $0?.modificationTime ?? 0 }), uniquingKeysWith: { first, _ in first })
        }
    }

    /// One peer's folder: what its log folder of this model holds, and its other model versions.
    package struct PeerFolder: Sendable {
        package let peerID: String
        /// The entries of its log folder (`ContainerLocation.logDirectory(of:)`), sorted by name.
        package let entries: [ContainerEntry]
        /// Its content folder's entries (model version folders and anything else), when listed.
        package let contentEntries: [ContainerEntry]?
        /// Duplicate copies read in place of a missing log, by name, with the log's number
        /// (`ContainerEntry.standInCopies`).
        package let standIns: [String: Int64]

        package init(peerID: String, entries: [ContainerEntry], contentEntries: [ContainerEntry]?) {
            self.peerID = peerID
            self.entries = entries
            self.contentEntries = contentEntries
            standIns = ContainerEntry.standInCopies(entries)
        }

        /// The transaction number `entry` is read as: a log's own, or the log's a copy stands in for.
        package func logNumber(_ entry: ContainerEntry) -> Int64? {
            entry.logNumber ?? (standIns.isEmpty ? nil : standIns[entry.name])
        }
    }

    package let location: ContainerLocation
    /// Whether every peer's content folder was listed (`init(location:modelVersions:)`).
    package let listsModelVersions: Bool
    /// The ubiquity root's entries, sorted by name.
    package private(set) var root: [ContainerEntry] = []
    /// Valid peer folders (holding this content and model or not), in the order of `root`.
    package private(set) var peerFolders: [PeerFolder] = []
    /// Regular log files of this content and model (a duplicate copy standing in for a missing
    /// log among them, under the copy's name).
    package private(set) var logs: [LogFile] = []
    /// `.nosync` files in the log folders (peer, file name): never travel, shown as Excluded.
    package private(set) var excluded: [(peerID: String, name: String)] = []
    /// The transaction numbers present, by peer.
    private var numbers: [String: Set<Int64>] = [:]
    /// The ubiquity root, opened for the confinement checks of this scan's folders.
    private let openedRoot: ContainerLocation.OpenedRoot

    /// Lists the root and every peer's log folder; with `modelVersions`, every peer's content
    /// folder too (one more listing per peer, for callers that look at other model versions).
    package init(location: ContainerLocation, modelVersions: Bool = false) {
        self.location = location
        listsModelVersions = modelVersions
        openedRoot = ContainerLocation.OpenedRoot(location)
        root = ContainerEntry.list(location.ubiquityRoot, as: .root, of: location)
        for folder in root where folder.kind == .peerFolder {
            peerFolders.append(Self.listPeer(folder.name, modelVersions: modelVersions, of: location, root: openedRoot))
        }
        gatherLogs()
    }

    /// Lists `peer`'s log folder again (and its content folder, when this scan lists them): a
    /// sync that wrote into its own folder (logs it exported, its receipt, logs it collected)
    /// sees the container as a new scan would, without listing every other folder again. A peer
    /// folder the scan did not have makes it list everything again (the root changed).
    package mutating func relist(peer peerID: String) {
        guard let index = peerFolders.firstIndex(where: { $0.peerID == peerID }) else {
            // Listed from the root: `ubiquityRoot/<peer>` either is still absent or calls for a new root listing.
            if DirectoryEntry.at(location.peerDirectory(of: peerID)) != nil { self = ContainerScan(location: location, modelVersions: listsModelVersions) }
            return
        }
        peerFolders[index] = Self.listPeer(peerID, modelVersions: listsModelVersions, of: location, root: openedRoot)
        // Only this peer's stretch of `logs` and `excluded` changes: both follow the folders' order.
        let gathered = Self.gatherListed(peerFolders[index])
        logs.replaceStretch(with: gathered.logs, folders: peerFolders, index: index) { $0.peerID }
        excluded.replaceStretch(with: gathered.excluded, folders: peerFolders, index: index) { $0.peerID }
        numbers[peerID] = gathered.numbers.isEmpty ? nil : gathered.numbers
    }

    private static func listPeer(_ peerID: String, modelVersions: Bool, of location: ContainerLocation, root: ContainerLocation.OpenedRoot) -> PeerFolder {
        let contentEntries = modelVersions ? ContainerEntry.list(location.contentDirectory(of: peerID), as: .peerContent, of: location, root: root) : nil
        let entries = ContainerEntry.list(location.logDirectory(of: peerID), as: .logs, of: location, root: root)
        return PeerFolder(peerID: peerID, entries: entries, contentEntries: contentEntries)
    }

    private typealias Gathered = (logs: [LogFile], excluded: [(peerID: String, name: String)], numbers: Set<Int64>)

    /// `gather(folder)`, kept with the folder's kept listing (`LogFolderListings.derived`):
    /// a sync gathers every peer's folder, and most listings are the very array of the sync before.
    private static func gatherListed(_ folder: PeerFolder) -> Gathered {
        guard let directory = folder.entries.first?.directory else { return gather(folder) }
        return LogFolderListings.derived(from: folder.entries, of: directory, key: folder.peerID) { gather(folder) }
    }

    /// `logs`, `excluded` and `numbers` from the peer folders' entries.
    private mutating func gatherLogs() {
        for folder in peerFolders {
            let gathered = Self.gatherListed(folder)
            logs += gathered.logs
            excluded += gathered.excluded
            // Gathered here and stored once: one lookup of the peer instead of one per log, and
            // the set itself when it is the peer's first folder (no copy of it, number by number).
            guard !gathered.numbers.isEmpty else { continue }
            if numbers[folder.peerID] == nil {
                numbers[folder.peerID] = gathered.numbers
            } else {
                numbers[folder.peerID]!.formUnion(gathered.numbers)
            }
        }
    }

    /// One peer folder's regular logs, `.nosync` files and transaction numbers, in name order.
    private static func gather(_ folder: PeerFolder) -> Gathered {
        var logs: [LogFile] = [], excluded: [(peerID: String, name: String)] = [], numbers: Set<Int64> = []
        for entry in folder.entries where entry.isRegularFile {
            switch entry.kind {
            case .temporary: excluded.append((folder.peerID, entry.name))
            case .log, .duplicateCopy:
                guard let number = folder.logNumber(entry) else { continue }
                logs.append(LogFile(peerID: folder.peerID, number: number, name: entry.name, folder: entry.folder ?? OpenFolder(entry.directory)))
                numbers.insert(number)
            default: break
            }
        }
        return (logs, excluded, numbers)
    }

    /// The logs numbered above `floor(peer)`, in scan order: `floor` is asked once per peer
    /// (a knowledge vector's lookup hashes the peer ID), not once per log.
    package func logs(above floor: (String) -> Int64) -> [LogFile] {
        var result: [LogFile] = []
        var peer: String?, bound: Int64 = 0
        for log in logs {
            if log.peerID != peer {
                peer = log.peerID
                bound = floor(log.peerID)
            }
            if log.number > bound { result.append(log) }
        }
        return result
    }

    /// Valid peer folders (holding this content and model or not).
    package var peers: [String] { peerFolders.map(\.peerID) }

    /// Entries of the ubiquity root that are neither a peer's folder nor a dot name (dot names
    /// are the container's own folders or temporaries): nothing in them is ever imported.
    package var strangers: [ContainerEntry] { root.filter { $0.kind != .peerFolder && !$0.name.hasPrefix(".") } }

    /// Whether `peer`'s log `number` is present.
    package func has(peer: String, number: Int64) -> Bool { numbers[peer]?.contains(number) ?? false }

    /// The folders of other model versions in `peer`'s content folder (listed now when the
    /// scan did not list content folders).
    package func otherModels(of peer: PeerFolder) -> [ContainerEntry] {
        let entries = peer.contentEntries ?? ContainerEntry.list(location.contentDirectory(of: peer.peerID), as: .peerContent, of: location)
        return entries.filter { $0.kind == .otherModel }
    }

    /// The classified entries of one of the container's shared folders: the baseline folder of
    /// this content and model, this content's external data, or the content epochs.
    package static func sharedFolder(_ folder: ContainerEntry.Folder, of location: ContainerLocation) -> [ContainerEntry] {
        switch folder {
        case .baselines: return ContainerEntry.list(location.baselineDirectory, as: .baselines, of: location)
        case .externalData: return ContainerEntry.list(location.externalDataDirectory, as: .externalData, of: location)
        case .contentEpochs: return ContainerEntry.list(location.contentEpochDirectory, as: .contentEpochs, of: location)
        case .root, .peerContent, .logs: return []
        }
    }

    /// This content's external data files in the cloud (regular files named by a hash), with
    /// their metadata (one `lstat` each).
    package static func externalDataFiles(of location: ContainerLocation) -> [DirectoryEntry] {
        sharedFolder(.externalData, of: location).filter { $0.isRegularFile && $0.kind == .externalData }.compactMap(\.file)
    }

    /// The folders whose changes a sync of `location` must notice (`ubiq watch` watches them):
    /// the baseline folders, the content epochs and each peer's folder, content folder and log
    /// folder. Listed anew on every call: a file-sync tool creates folders late, and a content
    /// removal deletes and recreates them.
    package static func foldersToWatch(_ location: ContainerLocation) -> [String] {
        var directories = [location.baselineRootDirectory, location.baselineVersionsDirectory, location.baselineDirectory, location.contentEpochDirectory]
        for peer in peers(of: location) {
            directories += [location.peerDirectory(of: peer), location.contentDirectory(of: peer), location.logDirectory(of: peer)]
        }
        return directories
    }

    /// The valid peer folders of the ubiquity root, listing only the root.
    package static func peers(of location: ContainerLocation) -> [String] {
        ContainerEntry.list(location.ubiquityRoot, as: .root, of: location).filter { $0.kind == .peerFolder }.map(\.name)
    }
}

private extension Array {
    /// Replaces the elements of `folders[index]` with `stretch`, where the list holds each
    /// folder's elements together in the folders' order: an absent stretch goes before the
    /// first element of a later folder.
    mutating func replaceStretch(with stretch: [Element], folders: [ContainerScan.PeerFolder], index: Int,
                                 peer: (Element) -> String) {
        var start = endIndex, end = endIndex, folder = 0
        for (position, element) in enumerated() {
            let owner = peer(element)
            while folder < folders.count && folders[folder].peerID != owner { folder += 1 }
            if folder == index && start == endIndex { start = position }
            if folder > index {
                if start == endIndex { start = position }
                end = position
                break
            }
        }
        replaceSubrange(start..<end, with: stretch)
    }
}
