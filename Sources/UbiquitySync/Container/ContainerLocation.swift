import UbiquityBase

/// Where one peer's store lives in the cloud (Docs/ContainerFormat.md):
/// `<cloud>/<token>/<container id>/<content URL>/` is the ubiquity root; under it each peer
/// writes only `<peerID>/<ContentName>/<modelHash>/`.
public struct ContainerLocation: Sendable, Equatable {
    public let cloud: String
    public let identityToken: String
    public let containerIdentifier: String
    public let contentURL: String
    public let contentName: String
    public let modelHash: String
    /// Whether the content is encrypted and this device holds the key: every read and write
    /// below the root passes through it (`ContainerLocation+Confinement.swift`). Not part of
    /// what makes two locations equal.
    public package(set) var sealing: ContentSealing = .none
    /// What this location's syncs keep between rounds (`SyncCaches`): its own, made with it and
    /// shared only by its copies, so each peer's are its own. Not part of what makes two
    /// locations equal.
    package let caches = SyncCaches()

    public init(cloud: String, identityToken: String, containerIdentifier: String, contentURL: String, contentName: String, modelHash: String) {
        self.cloud = cloud
        self.identityToken = identityToken
        self.containerIdentifier = containerIdentifier
        self.contentURL = contentURL
        self.contentName = contentName
        self.modelHash = modelHash
        ubiquityRoot = cloud + "/" + "\(identityToken)/\(containerIdentifier)/\(contentURL)"
    }

    /// `<cloud>/<token>/<container id>/<content URL>`: made once, since every path of the
    /// container and every confinement check starts with it.
    public let ubiquityRoot: String

    /// The ubiquity root relative to the cloud, `<token>/<container id>/<content URL>` (as a
    /// transfer daemon names files).
    public var rootInCloud: String { "\(identityToken)/\(containerIdentifier)/\(contentURL)" }

    // MARK: Names (Docs/ContainerFormat.md): every file and folder name of the container is spelled here.

    /// A peer's receipt, in its log folder.
    public static let receiptName = "receipt.0.cdt"
    /// The baseline of a content and model, in its baseline folder.
    public static let baselineName = "baseline.zip"
    /// Our own temporary files end so: they never travel, and nothing reads them.
    public static let temporarySuffix = AtomicFile.temporarySuffix
    /// The container's own folders in the ubiquity root (never a peer's).
    public static let baselineFolderName = ".baseline"
    public static let externalDataFolderName = ".externalData"
    public static let contentEpochFolderName = ".content"
    public static let encryptionFolderName = ".encryption"

    /// Whether `name` is one of our own temporary files (`*.nosync`).
    public static func isTemporary(_ name: String) -> Bool { name.hasSuffix(temporarySuffix) }

    // MARK: Peers' folders

    /// `<root>/<peerID>/<ContentName>`: the folder of `peerID`'s model versions of this content.
    public func contentDirectory(of peerID: String) -> String { peerDirectory(of: peerID) + "/" + contentName }

    /// `<root>/<peerID>`: everything `peerID` writes.
    public func peerDirectory(of peerID: String) -> String { ubiquityRoot + "/" + peerID }

    /// The folder of `peerID`'s logs and receipt.
    public func logDirectory(of peerID: String) -> String { contentDirectory(of: peerID) + "/" + modelHash }

    /// The file `name` (a log's, the receipt's) of `peerID`'s log folder.
    public func logPath(of peerID: String, _ name: String) -> String { logDirectory(of: peerID) + "/" + name }

    public func receiptPath(of peerID: String) -> String { logPath(of: peerID, Self.receiptName) }

    /// A file of `peerID`'s log folder, relative to the ubiquity root (as quarantine records name files).
    public func relativeLogPath(_ peerID: String, _ name: String) -> String { "\(peerID)/\(contentName)/\(modelHash)/\(name)" }

    /// `peerID`'s receipt, relative to the ubiquity root.
    public func relativeReceiptPath(of peerID: String) -> String { relativeLogPath(peerID, Self.receiptName) }

    /// The absolute path of `relative`, a path relative to the ubiquity root (as quarantine records name files).
    public func absolute(_ relative: String) -> String { ubiquityRoot + "/" + relative }

    /// A path below the ubiquity root, relative to it (`nil` for one outside).
    public func relative(_ path: String) -> String? {
        path.hasPrefix(ubiquityRoot + "/") ? String(path.dropFirst(ubiquityRoot.count + 1)) : nil
    }

    // MARK: Shared folders

    /// `<root>/.baseline`: the baselines of every content.
    public var baselineRootDirectory: String { ubiquityRoot + "/" + Self.baselineFolderName }

    /// `<root>/.baseline/<ContentName>`: the folders of this content's model versions' baselines.
    public var baselineVersionsDirectory: String { baselineRootDirectory + "/" + contentName }

    /// The folder of this content's and model's baselines: `baseline.zip` and its conflict copies.
    public var baselineDirectory: String { baselineVersionsDirectory + "/" + modelHash }

    public var baselinePath: String { baselineDirectory + "/" + Self.baselineName }

    /// A file in the baseline folder, relative to the ubiquity root (as quarantine records name files).
    public func relativeBaselinePath(_ name: String) -> String { "\(Self.baselineFolderName)/\(contentName)/\(modelHash)/\(name)" }

    /// The folder of this content's external values.
    public var externalDataDirectory: String { ubiquityRoot + "/" + Self.externalDataFolderName + "/" + contentName }

    /// An external data file, relative to the ubiquity root (as quarantine records name files).
    public func relativeExternalDataPath(_ name: String) -> String { "\(Self.externalDataFolderName)/\(contentName)/\(name)" }

    /// `<root>/.content`: the content epochs of every content.
    public var contentEpochDirectory: String { ubiquityRoot + "/" + Self.contentEpochFolderName }

    /// The name of this content's epoch file in `contentEpochDirectory`.
    public var contentEpochName: String { contentName + ".plist" }

    public var contentEpochPath: String { contentEpochDirectory + "/" + contentEpochName }

    /// A file of the content epochs' folder, relative to the ubiquity root.
    public func relativeEpochFolderPath(_ name: String) -> String { Self.contentEpochFolderName + "/" + name }

    /// The encrypted content's key record (Docs/ContainerFormat.md, "Encryption"): the content key wrapped under the passphrase.
    public var encryptionRecordPath: String { "\(ubiquityRoot)/\(Self.encryptionFolderName)/\(contentName).plist" }

    /// This location with the sealing of a device whose key for the content is kept in `keyFile`
    /// and which opens sealed baselines in `scratchDirectory` (a folder of the device).
    public func sealed(keyFile: String, scratchDirectory: String) -> ContainerLocation {
        var copy = self
        let plain = self
        copy.sealing = ContentSealing(recordPath: encryptionRecordPath, keyFile: keyFile, scratchDirectory: scratchDirectory, sealedWitnesses: {
            // Every peer that synced since encryption went on rewrote its receipt sealed: a few suffice.
            [plain.contentEpochPath, plain.baselinePath] + ContainerScan.peers(of: plain).prefix(4).map(plain.receiptPath(of:))
        }, contentFiles: {
            // Each sealed under the key its writer holds: which key the content is sealed under.
            [plain.contentEpochPath, plain.baselinePath] + ContainerScan.peers(of: plain).map(plain.receiptPath(of:))
        })
        return copy
    }

    public static func == (lhs: ContainerLocation, rhs: ContainerLocation) -> Bool {
        lhs.cloud == rhs.cloud && lhs.identityToken == rhs.identityToken && lhs.containerIdentifier == rhs.containerIdentifier
            && lhs.contentURL == rhs.contentURL && lhs.contentName == rhs.contentName && lhs.modelHash == rhs.modelHash
    }
}
