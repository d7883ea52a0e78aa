import UbiquityCore

/// A load and crash test: object *i* gets the natural key `<prefix><i>` and is saved in a
/// transaction of its own. Keys already alive are skipped, so a killed run simply runs again
/// and finishes the rest.
public struct SoakRun: Sendable {
    public let entity: String
    public let prefix: String
    public let count: Int

    public init(entity: String, prefix: String, count: Int) {
        self.entity = entity
        self.prefix = prefix
        self.count = count
    }

    /// Publishes what an earlier, killed run left in the outbox, then saves the objects on
    /// `peer`, calling `saved` with each new object's ID right after its save returned: every
    /// ID passed on is an acknowledged change.
    public func run(on peer: UbiquityPeer, saved: (GlobalID) -> Void) throws {
        let description = try peer.store.model.entity(named: entity)
        // A kill between a save's commit and its export leaves that log in the outbox; when
        // every key is already alive no save follows to flush it, so publish it first.
        try peer.exportPending()
        let context = peer.newContext()
        for index in 0..<max(count, 0) {
            let id = try GlobalID(entity: entity, key: "\(prefix)\(index)")
            if try peer.store.isAlive(id) { continue }
            let object = try context.insert(entity, key: id.key)
            for (name, value) in description.sampleValues(label: id.key) { try object.setValue(value, for: name) }
            try context.save()
            saved(id)
        }
    }
}
