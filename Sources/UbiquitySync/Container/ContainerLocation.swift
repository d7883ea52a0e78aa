/// Where one peer's store lives in the cloud (DESIGN §2):
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

    public init(cloud: String, identityToken: String, containerIdentifier: String, contentURL: String, contentName: String, modelHash: String) {
        self.cloud = cloud
        self.identityToken = identityToken
        self.containerIdentifier = containerIdentifier
        self.contentURL = contentURL
        self.contentName = contentName
        self.modelHash = modelHash
    }

    public var ubiquityRoot: String { "\(cloud)/\(identityToken)/\(containerIdentifier)/\(contentURL)" }

    /// The folder of `peerID`'s logs and receipt.
    public func logDirectory(of peerID: String) -> String { "\(ubiquityRoot)/\(peerID)/\(contentName)/\(modelHash)" }

    public func receiptPath(of peerID: String) -> String { logDirectory(of: peerID) + "/receipt.0.cdt" }

    /// A file of `peerID`'s log folder, relative to the ubiquity root (as quarantine records name files).
    public func relativeLogPath(_ peerID: String, _ name: String) -> String { "\(peerID)/\(contentName)/\(modelHash)/\(name)" }

    public var baselinePath: String { "\(ubiquityRoot)/.baseline/\(contentName)/\(modelHash)/baseline.zip" }

    public var contentEpochPath: String { "\(ubiquityRoot)/.content/\(contentName).plist" }

    /// The encrypted content's key record (DESIGN §10): the content key wrapped under the passphrase.
    public var encryptionRecordPath: String { "\(ubiquityRoot)/.encryption/\(contentName).plist" }

    /// This location with the sealing of a device whose key for the content is kept in `keyFile`
    /// and which opens sealed baselines in `scratchDirectory` (a folder of the device).
    public func sealed(keyFile: String, scratchDirectory: String) -> ContainerLocation {
        var copy = self
        copy.sealing = ContentSealing(recordPath: encryptionRecordPath, keyFile: keyFile, scratchDirectory: scratchDirectory)
        return copy
    }

    public static func == (lhs: ContainerLocation, rhs: ContainerLocation) -> Bool {
        lhs.cloud == rhs.cloud && lhs.identityToken == rhs.identityToken && lhs.containerIdentifier == rhs.containerIdentifier
            && lhs.contentURL == rhs.contentURL && lhs.contentName == rhs.contentName && lhs.modelHash == rhs.modelHash
    }
}
