import Foundation
import Ubiquity

/// One of the demo's devices: a letter for the story and its open peer.
struct DemoPeer {
    let letter: String
    let peer: UbiquityPeer

    init(letter: String, user: String, root: String, template: PeerConfiguration) throws {
        self.letter = letter
        var configuration = template
        configuration.cloud = root + "/cloud"
        configuration.device = root + "/devices/" + letter
        _ = try Device.create(at: configuration.device, userName: user, cloud: configuration.cloud)
        peer = try UbiquityPeer(configuration: configuration)
    }

    /// Makes changes in one context and saves them: one transaction, one log in the cloud.
    func save(_ changes: (ObjectContext) throws -> Void) throws {
        let context = peer.newContext()
        try changes(context)
        try context.save()
    }

    func object(_ id: GlobalID, in context: ObjectContext) throws -> ManagedObject {
        guard let object = try context.object(id) else { throw StoreError.objectNotFound(id) }
        return object
    }

    func title(of id: GlobalID) throws -> String? {
        try peer.store.snapshot(of: id)?.values["title"]??.stringValue
    }

    func sync() throws {
        Console.out("  \(letter) syncs: \(try peer.sync().line)")
    }

    func dumpText() throws -> String { try peer.store.dump().text() }
}
