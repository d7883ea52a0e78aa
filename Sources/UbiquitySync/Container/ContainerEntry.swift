import UbiquityBase
import UbiquityCore

/// One name in the container, classified once by the rules of Docs/ContainerFormat.md: what it is decides
/// whether anything ever reads it. Classification looks at the name and the type the listing
/// told (`readdir`), never at the file: a caller asks for metadata (`file`) only when it needs it.
package struct ContainerEntry: Sendable, Equatable {
    /// What an entry is.
    package enum Kind: Sendable, Equatable {
        /// A peer's folder in the ubiquity root (a valid peer ID, a real folder).
        case peerFolder
        /// One of the container's own folders in the ubiquity root (`.baseline`, `.content`,
        /// `.externalData`, `.encryption`).
        case containerFolder
        /// The folder of this location's model version in a peer's content folder.
        case modelFolder
        /// A folder of another model version in a peer's content folder (never imported here).
        case otherModel
        /// A transaction log `<number>-<UUID>.1.cdt`.
        case log(Int64)
        /// A peer's receipt.
        case receipt
        /// The baseline of this content and model.
        case baseline
        /// A file of external data (named by its value's hash).
        case externalData
        /// This content's epoch file.
        case contentEpoch
        /// Our own temporary file (`*.nosync`): never travels, never read.
        case temporary
        /// A file-sync engine's transfer in progress (or left by one that never finished).
        case transfer(engine: String)
        /// A file-sync engine's conflict copy of the file named `of` in the same folder.
        case conflictCopy(of: String, engine: String)
        /// A second delivery of the log or receipt named `of` in the same folder, under a
        /// numbered name (`name 2.ext`, `DuplicateCopy`): read only in place of a missing log.
        case duplicateCopy(of: String)
        /// Anything else: never read.
        case foreign

        /// A file-sync engine's transfer or conflict copy.
        package var isFileSyncArtifact: Bool {
            switch self {
            case .transfer, .conflictCopy: return true
            default: return false
            }
        }
    }

    /// The folders of the container an entry can lie in: each has its own rules.
    package enum Folder: Sendable {
        /// The ubiquity root.
        case root
        /// `<peer>/<ContentName>`: model version folders.
        case peerContent
        /// A peer's log folder of one model version: logs and its receipt.
        case logs
        /// `.baseline/<ContentName>/<modelHash>`.
        case baselines
        /// `.externalData/<ContentName>`.
        case externalData
        /// `.content`: every content's epoch file.
        case contentEpochs
    }

    package let name: String
    /// The folder it lies in (absolute).
    package let directory: String
    /// The type the listing told.
    package let type: DirectoryEntry.ListedType
    package let kind: Kind

    /// The folder opened for questions about its files (shared by one listing's entries).
    package let folder: OpenFolder?

    package init(name: String, directory: String, type: DirectoryEntry.ListedType, kind: Kind, folder: OpenFolder? = nil) {
        self.name = name
        self.directory = directory
        self.type = type
        self.kind = kind
        self.folder = folder
    }

    /// Absolute path (made when asked: most entries of a big folder are judged by name alone).
    package var path: String { directory + "/" + name }

    package var isRegularFile: Bool { type == .regular }
    package var isDirectory: Bool { type == .directory }

    /// The transaction number when this is a log (whatever the file's type).
    package var logNumber: Int64? {
        if case let .log(number) = kind { return number }
        return nil
    }

    /// `baseline.zip` or a file-sync tool's conflict copy of it (peers read every one).
    package var isBaselineFile: Bool {
        switch kind {
        case .baseline, .conflictCopy(of: ContainerLocation.baselineName, engine: _): return true
        default: return false
        }
    }

    /// The file's metadata now (one `fstatat` in its listing's open folder, or `lstat`; `nil`
    /// when it is gone).
    package var file: DirectoryEntry? {
        guard let folder else { return DirectoryEntry.at(path) }
        return folder.entry(name)
    }

    /// `file` of each of `entries`, in order: those of one listing are asked of their folder
    /// together (`OpenFolder.entries`), with one look at a watch's events for them all.
    package static func files(_ entries: [ContainerEntry]) -> [DirectoryEntry?] {
        guard let folder = entries.first?.folder, entries.allSatisfy({ $0.folder === folder }) else { return entries.map(\.file) }
        return folder.entries(entries.map(\.name))
    }

    /// The same name, place, type and kind (how the folder is held does not matter).
    package static func == (lhs: ContainerEntry, rhs: ContainerEntry) -> Bool {
        lhs.name == rhs.name && lhs.directory == rhs.directory && lhs.type == rhs.type && lhs.kind == rhs.kind
    }

    /// The entries of `directory`, a folder of kind `folder` of `location`, classified; none when
    /// it is not a real folder below the root (`ContainerLocation.isConfined`). One listing, no `lstat`.
    /// A log folder's listing is kept across syncs while the folder does not change (`LogFolderListings`).
    package static func list(_ directory: String, as folder: Folder, of location: ContainerLocation, root: ContainerLocation.OpenedRoot? = nil) -> [ContainerEntry] {
        if folder == .logs { return LogFolderListings.list(directory, of: location, root: root) }
        guard folder == .root || location.confinement(of: directory, root: root).isConfined else { return [] }
        return listed(directory, as: folder, of: location)
    }

    /// The entries of `directory`, listed and classified now (its confinement already checked),
    /// their files asked of `opened` (by default, the folder opened at the first question).
    package static func listed(_ directory: String, as folder: Folder, of location: ContainerLocation, opened: OpenFolder? = nil) -> [ContainerEntry] {
        let opened = opened ?? OpenFolder(directory)
        return DirectoryEntry.typedNames(directory).map { listed in
            ContainerEntry(name: listed.name, directory: directory, type: listed.type,
                           kind: classify(listed.name, type: listed.type, in: folder, of: location), folder: opened)
        }
    }

    /// What `name` (of type `type`) is in a folder of kind `folder` of `location`.
    package static func classify(_ name: String, type: DirectoryEntry.ListedType, in folder: Folder, of location: ContainerLocation) -> Kind {
        switch folder {
        case .root:
            if [ContainerLocation.baselineFolderName, ContainerLocation.externalDataFolderName, ContainerLocation.contentEpochFolderName,
                ContainerLocation.encryptionFolderName].contains(name) { return .containerFolder }
            if type == .directory, CloudNames.isValidPeerID(name) { return .peerFolder }
        case .peerContent:
            if type == .directory { return name == location.modelHash ? .modelFolder : .otherModel }
        case .logs:
            if let number = TransactionLog.transactionNumber(inFileName: name) { return .log(number) }
            if name == ContainerLocation.receiptName { return .receipt }
            if let original = DuplicateCopy.original(of: name) { return .duplicateCopy(of: original) }
        case .baselines:
            if name == ContainerLocation.baselineName { return .baseline }
        case .externalData:
            // Values are named by hashes; a dot name is a temporary file or a transfer's (below).
            if !name.hasPrefix(".") && !ContainerLocation.isTemporary(name) { return .externalData }
        case .contentEpochs:
            if name == location.contentEpochName { return .contentEpoch }
        }
        if ContainerLocation.isTemporary(name) { return .temporary }
        switch SyncArtifact.classify(name) {
        case let .temporary(engine)?: return .transfer(engine: engine)
        case let .conflictCopy(original, engine)?: return .conflictCopy(of: original, engine: engine)
        case nil: return .foreign
        }
    }
}
