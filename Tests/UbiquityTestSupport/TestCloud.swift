import Foundation
import Ubiquity
import UbiquitySimulation

/// A fresh temporary cloud directory with devices in it: the two- and n-peer harness of the
/// sync tests (one shared local folder, as Ensembles' tests use).
public final class TestCloud {
    public let root: String
    public var cloud: String { root + "/cloud" }
    public let model: ObjectModel
    public let contentName: String

    public init(model: ObjectModel = .notes, contentName: String = "Notes") throws {
        root = NSTemporaryDirectory() + "ubiquity-test-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: root + "/cloud", withIntermediateDirectories: true)
        self.model = model
        self.contentName = contentName
    }

    deinit { try? FileManager.default.removeItem(atPath: root) }

    public func devicePath(_ name: String) -> String { root + "/devices/" + name }

    /// Creates device `name` (signed in to `account`) and opens a peer on it.
    /// `clock`: the time the peer stamps and collects garbage by (a test's simulated time).
    public func peer(_ name: String, account: String? = Device.defaultAccount, format: PlistFormat = .binary,
              policy: BaselinePolicy? = .apple, clock: WallClock = .system) throws -> UbiquityPeer {
        let path = devicePath(name)
        if !FileManager.default.fileExists(atPath: path + "/device.plist") {
            _ = try Device.create(at: path, userName: name, identityToken: account)
        }
        var configuration = configuration(name, policy: policy)
        configuration.logFormat = format
        configuration.clock = clock
        return try UbiquityPeer(configuration: configuration)
    }

    public func configuration(_ name: String, policy: BaselinePolicy? = .apple, rebuild: Bool = false) -> PeerConfiguration {
        var configuration = PeerConfiguration(cloud: cloud, device: devicePath(name), model: model, contentName: contentName,
                                              baselinePolicy: policy, logger: .silent)
        configuration.rebuildFromContent = rebuild
        return configuration
    }

    /// Creates device `name` if needed and a coordinator on it (the store not added yet).
    public func coordinator(_ name: String, account: String? = Device.defaultAccount, policy: BaselinePolicy? = .apple,
                     rebuild: Bool = false) throws -> UbiquitousStoreCoordinator {
        let path = devicePath(name)
        if !FileManager.default.fileExists(atPath: path + "/device.plist") {
            _ = try Device.create(at: path, userName: name, identityToken: account)
        }
        return try UbiquitousStoreCoordinator(configuration: configuration(name, policy: policy, rebuild: rebuild))
    }

    public func peers(_ count: Int) throws -> [UbiquityPeer] {
        try (0..<count).map { try peer("peer\($0)") }
    }
}

/// Collects events from any thread, in order.
public final class EventLog<Event: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var storage: [Event] = []
    public init() {}
    public func append(_ event: Event) { lock.withLock { storage.append(event) } }
    public var events: [Event] { lock.withLock { storage } }
    public func clear() { lock.withLock { storage.removeAll() } }
}

extension UbiquityPeer {
    /// The canonical dump as JSON text.
    public func dumpText() throws -> String { try store.dump().text() }
    public func mergeStateText() throws -> String { try store.mergeState().text() }
}
