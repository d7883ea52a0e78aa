import Foundation
import Ubiquity

/// One fixture's cloud and devices, under a scratch directory: peers are opened by device name.
struct BenchCloud {
    let root: String
    var cloud: String { root + "/cloud" }

    func devicePath(_ name: String) -> String { root + "/devices/" + name }

    /// Silent peers that roll baselines only when asked (`policy` nil), unless told otherwise.
    func configuration(_ device: String, policy: BaselinePolicy? = nil) -> PeerConfiguration {
        PeerConfiguration(cloud: cloud, device: devicePath(device), model: .notes, contentName: "Bench",
                          baselinePolicy: policy, logger: .silent)
    }

    /// Opens the peer of device `name`, creating the device first if needed.
    func peer(_ name: String, policy: BaselinePolicy? = nil) throws -> UbiquityPeer {
        try makeDevice(name)
        return try UbiquityPeer(configuration: configuration(name, policy: policy))
    }

    func makeDevice(_ name: String) throws {
        if !FileManager.default.fileExists(atPath: devicePath(name) + "/device.plist") {
            _ = try Device.create(at: devicePath(name), userName: "bench")
        }
    }

    /// A device name never used before (a newcomer).
    static func freshName(_ prefix: String) -> String { prefix + "-" + UUID().uuidString.prefix(8).lowercased() }

    /// Forgets a device and its store (the fixtures of big runs would fill the disk).
    func removeDevice(_ name: String) { try? FileManager.default.removeItem(atPath: devicePath(name)) }

    /// The folder of `peer`'s logs.
    func logDirectory(of peer: UbiquityPeer) -> String { peer.location!.logDirectory(of: peer.peerID) }
}

extension UbiquityPeer {
    /// Commits records as one local transaction and exports its log: what a context's save does,
    /// without the context (fixtures write many thousands of objects).
    func write(inserted: [ChangeRecord] = [], updated: [ChangeRecord] = []) throws {
        _ = try store.commitLocal(inserted: inserted, updated: updated, deleted: [])
        try exportPending()
        // Fixtures are not timed: no checkpoint of theirs may run beside what is.
        store.waitForCheckpointBeside()
    }
}
