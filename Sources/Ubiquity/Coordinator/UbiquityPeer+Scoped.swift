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

    /// For work that only reads: opens the device as `withPeer` does or, while another process
    /// owns it (a `watch`, an app), reads its store without the lock and without writing
    /// anything (`openReadOnly`).
    public static func withReadablePeer<T>(configuration: PeerConfiguration, _ body: (UbiquityPeer) throws -> T) throws -> T {
        let peer: UbiquityPeer
        do {
            peer = try UbiquityPeer(configuration: configuration)
        } catch PeerError.device(.inUse) {
            peer = try UbiquityPeer.openReadOnly(configuration: configuration)
        }
        defer { peer.close() }
        return try body(peer)
    }
}
