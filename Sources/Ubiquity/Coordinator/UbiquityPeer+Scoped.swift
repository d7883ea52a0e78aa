import Foundation
import UbiquityCore
import UbiquitySync

/// A peer opened for the length of one piece of work and closed after it, releasing the device:
/// what a command-line tool or a script does per call.
extension UbiquityPeer {
    /// Opens the device's peer with `configuration`, runs `body` with it, and closes it.
    public static func withPeer<T>(configuration: PeerConfiguration, _ body: (UbiquityPeer) throws -> T) throws -> T {
        let peer = try UbiquityPeer(configuration: configuration)
        defer { peer.close() }
        return try body(peer)
    }

    /// For work that only reads: opens the device read-only (`openReadOnly`), whether or not
    /// another process owns it, so a reader never holds the device's lock and never keeps its
    /// owner from writing. A read that SQLite fails while the owner replaces the store's files is
    /// tried again, briefly, on a fresh peer; a store its owner is creating, rebuilding or
    /// migrating is refused in one line (`StoreError.beingCreated`, `.beingReplaced`), and one
    /// that keeps failing with `StoreError.unsettled` — never SQLite's own message.
    public static func withReadablePeer<T>(configuration: PeerConfiguration, _ body: (UbiquityPeer) throws -> T) throws -> T {
        var attempt = 0
        while true {
            var storePath: String?
            do {
                let peer = try UbiquityPeer.openReadOnly(configuration: configuration)
                defer { peer.close() }
                storePath = peer.store.path
                return try body(peer)
            } catch let error as SQLiteError {
                let path = storePath ?? readOnlyStorePath(configuration) ?? configuration.device
                if let replacement = StoreMarker.replacement(of: path) { throw StoreError.beingReplaced(path, replacement) }
                attempt += 1
                guard attempt < readRetries else {
                    configuration.logger.log(.warning, .setupAssistant, "openReadOnly", "reading \(path) failed \(attempt) times: \(error)")
                    throw StoreError.unsettled(path)
                }
                usleep(useconds_t(20_000 * attempt))
            }
        }
    }

    /// How often a read-only peer is opened before `StoreError.unsettled`: the waits between
    /// add up to about a second, longer than an owner takes to swap a store's files.
    static let readRetries = 10

    /// Where a read-only peer of `configuration` finds its store, when the device says (for an
    /// error that came before the peer was made).
    private static func readOnlyStorePath(_ configuration: PeerConfiguration) -> String? {
        guard let device = try? Device.load(from: configuration.device) else { return nil }
        let kind: StoreKind = device.identityToken == nil ? .local : .account
        guard let folder = try? DeviceLocation(configuration, device: device).existingStoreFolder(kind: kind, token: device.identityToken) else { return nil }
        return folder.storeFile(kind: kind, storeName: configuration.storeName)
    }
}
