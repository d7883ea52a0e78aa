import Foundation
@testable import Ubiquity

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
    func peer(_ name: String, account: String? = Device.defaultAccount, format: PlistFormat = .binary) throws -> UbiquityPeer {
        let path = devicePath(name)
        if !FileManager.default.fileExists(atPath: path + "/device.plist") {
            _ = try Device.create(at: path, userName: name, identityToken: account)
        }
        return try UbiquityPeer(configuration: PeerConfiguration(
            cloud: cloud, device: path, model: model, contentName: contentName, logFormat: format, logger: .silent))
    }

    func peers(_ count: Int) throws -> [UbiquityPeer] {
        try (0..<count).map { try peer("peer\($0)") }
    }
}

import UbiquityPlist

extension UbiquityPeer {
    /// The canonical dump as JSON text.
    func dumpText() throws -> String { try store.dump().text() }
    func mergeStateText() throws -> String { try store.mergeState().text() }
}
