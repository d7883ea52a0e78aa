import Foundation
import Testing
import Ubiquity
import UbiquitySimulation

/// A fresh temporary cloud directory with devices in it: the two- and n-peer harness of the
/// sync tests (one shared local folder, as Ensembles' tests use).
///
/// Every peer and coordinator it makes must be gone before it is: one that outlives it keeps
/// writing into the deleted folder — logs, a device's `.lock` and store folders — and leaves
/// `ubiquity-test-*` behind in the temporary directory. `deinit` records an issue naming each
/// one still alive, so the test that lets it escape fails where it happened.
public final class TestCloud {
    public let root: String
    public var cloud: String { root + "/cloud" }
    public let model: ObjectModel
    public let contentName: String
    /// What this cloud made, held weakly: only to tell which of them outlive it.
    private var made: [Made] = []

    private struct Made {
        weak var object: AnyObject?
        let what: String
    }

    public init(model: ObjectModel = .notes, contentName: String = "Notes") throws {
        root = NSTemporaryDirectory() + "ubiquity-test-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: root + "/cloud", withIntermediateDirectories: true)
        self.model = model
        self.contentName = contentName
    }

    deinit {
        let alive = made.filter { $0.object != nil }.map(\.what)
        if !alive.isEmpty {
            Issue.record("\(alive.joined(separator: ", ")) outlive\(alive.count == 1 ? "s" : "") the test cloud they were made in: close them and keep the cloud until they are gone")
        }
        try? FileManager.default.removeItem(atPath: root)
    }

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
        let peer = try UbiquityPeer(configuration: configuration)
        made.append(Made(object: peer, what: "peer '\(name)'"))
        return peer
    }

    public func configuration(_ name: String, policy: BaselinePolicy? = .apple, rebuild: Bool = false) -> PeerConfiguration {
        var configuration = PeerConfiguration(cloud: cloud, device: devicePath(name), model: model, contentName: contentName,
                                              baselinePolicy: policy, logger: .silent)
        configuration.rebuildFromContent = rebuild
        return configuration
    }

    /// Creates device `name` if needed and a coordinator on it (the store not added yet). Live
    /// import is off unless asked for: a test that counts what its own `sync()` imported would
    /// otherwise race the coordinator's own rounds.
    public func coordinator(_ name: String, account: String? = Device.defaultAccount, policy: BaselinePolicy? = .apple,
                     rebuild: Bool = false, liveImport: LiveImport = .off) throws -> UbiquitousStoreCoordinator {
        let path = devicePath(name)
        if !FileManager.default.fileExists(atPath: path + "/device.plist") {
            _ = try Device.create(at: path, userName: name, identityToken: account)
        }
        let coordinator = try UbiquitousStoreCoordinator(configuration: configuration(name, policy: policy, rebuild: rebuild), liveImport: liveImport)
        made.append(Made(object: coordinator, what: "coordinator '\(name)'"))
        return coordinator
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
