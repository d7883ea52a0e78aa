import ArgumentParser
import Foundation
import Ubiquity

struct StoreCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "store",
        abstract: "Add the store as an app would, and say which store the device is on and why.",
        discussion: """
            On the first use of an account the device works on a fallback store while the initial \
            import runs; this command waits for the handover and reports it.
            Example: ubiq store --device ./phone
            """)

    @OptionGroup var global: GlobalOptions
    @Flag(help: "Print JSON: {store, why, now, nowWhy, events: [text]}.") var json = false

    func run() throws {
        let coordinator = try UbiquitousStoreCoordinator(configuration: try global.configuration())
        defer { coordinator.close() }
        let events = EventLines()
        coordinator.observe { [json] event in
            if json { events.append("\(event)") } else { Console.out("event: \(event)") }
        }
        let choice = try coordinator.addStore()
        let first = (choice.kind.rawValue, choice.reason)
        if !json { Console.out("store: \(first.0) — \(first.1)") }
        try coordinator.waitForBackgroundImport()
        let now = (coordinator.storeKind?.rawValue ?? "none", coordinator.storeReason)
        if json {
            Console.out(JSONValue.object(["store": .string(first.0), "why": .string(first.1), "now": .string(now.0),
                                          "nowWhy": .string(now.1), "events": .array(events.lines.map(JSONValue.string))]).text())
        } else if coordinator.storeKind != .local {
            Console.out("now: \(now.0) — \(now.1)")
        }
    }
}

struct RebuildCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rebuild",
        abstract: "Delete this device's store of the account and rebuild it from the container.",
        discussion: """
            The baseline and the logs rebuild it; transaction numbers continue where the container \
            says this peer stopped, so none is reused. A store made for another model version is \
            never replaced: migrate it first ('ubiq model migrate --to MODEL'). When the container \
            holds data of other versions only, rebuild says so.
            Example: ubiq rebuild --device ./phone
            """)

    @OptionGroup var global: GlobalOptions

    func run() throws {
        var configuration = try global.configuration()
        configuration.rebuildFromContent = true
        let coordinator = try UbiquitousStoreCoordinator(configuration: configuration)
        defer { coordinator.close() }
        try coordinator.addStore()
        try coordinator.waitForBackgroundImport()
        let peer = try coordinator.peer.orThrow("no store")
        Console.out("rebuilt: \(coordinator.storeReason); knowledge \(peer.store.knowledge)")
        // Say so when the data is there, but under another model version.
        if let versions = try ModelVersionReport.make(for: peer), peer.store.knowledge.entries.isEmpty {
            let others = versions.versions.filter { !$0.isThisPeers && (!$0.peersOnIt.isEmpty || $0.hasBaseline) }
            if !others.isEmpty {
                Console.out("warning: this model version (\(global.model ?? "the built-in Notes model")) has no data in the container, but other versions do (\(others.map(\.modelHash).joined(separator: ", "))): rebuild with the model they use, or migrate those peers")
            }
        }
    }
}

struct RemoveContentCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove-content",
        abstract: "Remove the content from the cloud: every peer's logs and receipts, the baselines, and this store's data.",
        discussion: """
            Other peers notice at their next sync (contentRemoved) and continue on an empty store. \
            Nothing can bring the content back: pass --yes to confirm.
            Example: ubiq remove-content --yes --device ./phone
            """)

    @OptionGroup var global: GlobalOptions
    @Flag(help: "Confirm the removal.") var yes = false

    func run() throws {
        guard yes else { throw CLIError("remove-content deletes every peer's data of '\(global.content)' in the cloud; pass --yes to confirm") }
        try global.withPeer { peer in try peer.removeUbiquitousContent() }
        Console.out("removed the content '\(global.content)' from the cloud; a new content epoch was written")
    }
}

/// Event lines collected from the coordinator's thread.
final class EventLines: @unchecked Sendable {
    private let lock = NSLock()
    private var storage: [String] = []
    func append(_ line: String) { lock.withLock { storage.append(line) } }
    var lines: [String] { lock.withLock { storage } }
}

extension Optional {
    func orThrow(_ message: String) throws -> Wrapped {
        guard let self else { throw CLIError(message) }
        return self
    }
}
