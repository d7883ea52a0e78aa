import Foundation
@testable import Ubiquity
@_exported import UbiquitySimulation

/// A fresh temporary cloud directory with devices in it: the two- and n-peer harness of the
/// sync tests (one shared local folder, as Ensembles' tests use).
final class TestCloud {
    let root: String
    var cloud: String { root + "/cloud" }
    let model: ObjectModel
    let contentName: String

    init(model: ObjectModel = .notes, contentName: String = "Notes") throws {
        root = NSTemporaryDirectory() + "ubiquity-test-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: root + "/cloud", withIntermediateDirectories: true)
        self.model = model
        self.contentName = contentName
    }

    deinit { try? FileManager.default.removeItem(atPath: root) }

    func devicePath(_ name: String) -> String { root + "/devices/" + name }

    /// Creates device `name` (signed in to `account`) and opens a peer on it.
    func peer(_ name: String, account: String? = Device.defaultAccount, format: PlistFormat = .binary,
              policy: BaselinePolicy? = .apple) throws -> UbiquityPeer {
        let path = devicePath(name)
        if !FileManager.default.fileExists(atPath: path + "/device.plist") {
            _ = try Device.create(at: path, userName: name, identityToken: account)
        }
        var configuration = configuration(name, policy: policy)
        configuration.logFormat = format
        return try UbiquityPeer(configuration: configuration)
    }

    func configuration(_ name: String, policy: BaselinePolicy? = .apple, rebuild: Bool = false) -> PeerConfiguration {
        var configuration = PeerConfiguration(cloud: cloud, device: devicePath(name), model: model, contentName: contentName,
                                              baselinePolicy: policy, logger: .silent)
        configuration.rebuildFromContent = rebuild
        return configuration
    }

    /// Creates device `name` if needed and a coordinator on it (the store not added yet).
    func coordinator(_ name: String, account: String? = Device.defaultAccount, policy: BaselinePolicy? = .apple,
                     rebuild: Bool = false) throws -> UbiquitousStoreCoordinator {
        let path = devicePath(name)
        if !FileManager.default.fileExists(atPath: path + "/device.plist") {
            _ = try Device.create(at: path, userName: name, identityToken: account)
        }
        return try UbiquitousStoreCoordinator(configuration: configuration(name, policy: policy, rebuild: rebuild))
    }

    func peers(_ count: Int) throws -> [UbiquityPeer] {
        try (0..<count).map { try peer("peer\($0)") }
    }
}

/// Collects events from any thread, in order.
final class EventLog<Event: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var storage: [Event] = []
    func append(_ event: Event) { lock.withLock { storage.append(event) } }
    var events: [Event] { lock.withLock { storage } }
    func clear() { lock.withLock { storage.removeAll() } }
}

extension UbiquityPeer {
    /// The canonical dump as JSON text.
    func dumpText() throws -> String { try store.dump().text() }
    func mergeStateText() throws -> String { try store.mergeState().text() }
}
