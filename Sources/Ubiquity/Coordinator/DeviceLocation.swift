import Foundation
import UbiquityBase
import UbiquitySync

/// Where a device keeps what is its own for one content, as `ContainerLocation` says where the
/// cloud keeps it: `<device>/CoreDataUbiquitySupport/<peerID>/<ContentName>/`, holding one
/// folder per store — `local` for the signed-out store, and for each account a folder named by
/// the container ID that `tokens.plist` gives its identity token.
package struct DeviceLocation: Sendable, Equatable {
    /// The device's folder of every peer's stores.
    package static let supportFolderName = "CoreDataUbiquitySupport"
    /// The identity tokens' container IDs, in each content's folder.
    package static let tokenMapFileName = "tokens.plist"

    /// `<device>/CoreDataUbiquitySupport/<peerID>/<ContentName>`.
    package let support: String

    package init(device: String, peerID: String, contentName: String) {
        support = "\(device)/\(Self.supportFolderName)/\(peerID)/\(contentName)"
    }

    /// The location of the peer that `configuration` opens on `device`.
    package init(_ configuration: PeerConfiguration, device: Device) {
        self.init(device: configuration.device, peerID: device.peerID(peerToken: configuration.peerToken),
                  contentName: configuration.contentName)
    }

    /// The signed-out store's folder.
    package var localStore: StoreFolder { StoreFolder(path: support + "/local") }

    /// The folder of the account store whose container ID is `containerID`.
    package func accountStore(containerID: String) -> StoreFolder { StoreFolder(path: support + "/" + containerID) }

    /// The folder of the store of `kind` for the device's account `token` (`nil`: signed out),
    /// the account's container ID made on first use.
    package func storeFolder(kind: StoreKind, token: String?) throws -> StoreFolder {
        guard let token, kind != .local else { return localStore }
        return accountStore(containerID: try containerID(for: token))
    }

    /// `storeFolder(kind:token:)` without making anything: the account's container ID must
    /// already be in `tokens.plist`.
    package func existingStoreFolder(kind: StoreKind, token: String?) throws -> StoreFolder {
        guard let token, kind != .local else { return localStore }
        guard let id = try tokenMap()[token], UUID(uuidString: id) != nil else { throw PeerError.noAccountStore(token: token) }
        return accountStore(containerID: id)
    }

    // MARK: tokens.plist

    var tokenMapFile: String { support + "/" + Self.tokenMapFileName }

    /// The container ID (a UUID) this device uses for `token`, made on first use.
    package func containerID(for token: String) throws -> String {
        var map = try tokenMap()
        if let existing = map[token], UUID(uuidString: existing) != nil { return existing }
        let id = UUID().uuidString
        map[token] = id
        try writeTokenMap(map)
        return id
    }

    /// `tokens.plist`: identity token → container ID.
    package func tokenMap() throws -> [String: String] {
        guard FileManager.default.fileExists(atPath: tokenMapFile) else { return [:] }
        return (try PlistSeam.decode(try AtomicFile.read(tokenMapFile, limit: 1 << 20)).dictionaryValue ?? [:]).compactMapValues(\.stringValue)
    }

    package func writeTokenMap(_ map: [String: String]) throws {
        try AtomicFile.makeDirectory(support)
        try AtomicFile.write(PlistSeam.encode(.dictionary(map.mapValues(PlistValue.string)), format: .xml), to: tokenMapFile)
    }
}

/// One store's folder on a device: the store (or the fallback beside it), the content key,
/// the scratch and quarantine folders of its sync, and when it was last used.
package struct StoreFolder: Sendable, Equatable {
    package static let keyFileName = "content.key"
    package static let lastUsedFileName = "lastUsed"

    package let path: String

    package init(path: String) { self.path = path }

    /// The SQLite file of the store of `kind` named `storeName`.
    package func storeFile(kind: StoreKind, storeName: String) -> String {
        "\(path)/\(kind == .fallback ? "fallback" : "store")/\(storeName).sqlite"
    }

    /// The content key this device holds for an encrypted content.
    package var keyFile: String { path + "/" + Self.keyFileName }
    /// Where sealed files are opened and written before they move into place.
    package var stagingDirectory: String { path + "/container/staging" }
    /// Copies of the files the import set aside as damaged.
    package var quarantineDirectory: String { path + "/container/quarantine" }
    /// When the account's store was last used: the cleanup of unused accounts reads it.
    package var lastUsedFile: String { path + "/" + Self.lastUsedFileName }
}
