import Foundation
import Synchronization

/// Adds the store as an app does at launch and waits for the background import: which store
/// the device was on first, which one it is on after, and the coordinator's events between.
public struct StoreHandover: Sendable {
    /// The store `addStore` chose, and why.
    public let first: StoreChoice
    /// The store after the background import (`nil` when there is none), and why.
    public let now: StoreKind?
    public let nowReason: String
    /// Every event the coordinator posted, in order.
    public let events: [CoordinatorEvent]

    /// Opens a coordinator on `configuration`, adds the store, waits for the handover and
    /// closes it again. `event` sees each event as it is posted (on the coordinator's thread);
    /// `added` sees the first choice as soon as it is made, before the wait.
    public static func run(configuration: PeerConfiguration, event: @escaping @Sendable (CoordinatorEvent) -> Void = { _ in },
                           added: (StoreChoice) -> Void = { _ in }) throws -> StoreHandover {
        let coordinator = try UbiquitousStoreCoordinator(configuration: configuration, liveImport: .off)
        defer { coordinator.close() }
        let events = EventRecord()
        coordinator.observe { posted in
            events.append(posted)
            event(posted)
        }
        let first = try coordinator.addStore()
        added(first)
        try coordinator.waitForBackgroundImport()
        return StoreHandover(first: first, now: coordinator.storeKind, nowReason: coordinator.storeReason, events: events.all)
    }
}

/// Events collected from the coordinator's thread.
private final class EventRecord: Sendable {
    private let storage = Mutex<[CoordinatorEvent]>([])
    func append(_ event: CoordinatorEvent) { storage.withLock { $0.append(event) } }
    var all: [CoordinatorEvent] { storage.withLock { $0 } }
}
