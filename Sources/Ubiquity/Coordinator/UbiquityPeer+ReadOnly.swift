import Foundation
import UbiquityBase
import UbiquityCore
import UbiquitySync

/// A peer opened to read a device that another process may own (a `ubiq watch`): no device
/// lock is taken and nothing is written — not the store (SQLite opens it read-only; WAL lets it
/// read while the owner writes), not `lastUsed`, not the content epoch, no catch-up, no
/// migration (a sealed baseline is still read through a file of the device's staging folder,
/// unlinked at once, as every read of one is). Its store, location, baselines and reports read
/// as an ordinary peer's do, as of when it was opened for what it caches (its knowledge); `sync`,
/// imports, exports, baseline rolls and saves throw.
extension UbiquityPeer {
    /// Opens the current account's store (or the local store when signed out) for reading.
    /// A store this device never made, or one that would need writing to be opened (another
    /// model version, an older schema), is refused with a one-line error.
    public static func openReadOnly(configuration: PeerConfiguration) throws -> UbiquityPeer {
        try configuration.validate()
        let device: Device
        do throws(DeviceError) {
            device = try Device.load(from: configuration.device)
            // The owner recorded the device's cloud when it opened it; a mistyped one is refused all the same.
            try device.checkCloud(configuration.cloud)
        } catch {
            throw PeerError.device(error)
        }
        return try UbiquityPeer(configuration: configuration, device: device, deviceLock: nil,
                                kind: device.identityToken == nil ? .local : .account, readOnly: true)
    }

    /// Throws `StoreError.closed` after `close()`, and `PeerError.readOnly` for a peer opened read-only.
    func refuseUnlessWritable(_ action: String) throws {
        if isClosed { throw StoreError.closed }
        if isReadOnly { throw PeerError.readOnly(action: action) }
    }
}
