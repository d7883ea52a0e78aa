import ArgumentParser
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

    func run() throws {
        let coordinator = try UbiquitousStoreCoordinator(configuration: try global.configuration())
        defer { coordinator.close() }
        coordinator.observe { event in Console.out("event: \(event)") }
        try coordinator.addStore()
        Console.out("store: \(coordinator.storeKind?.rawValue ?? "none") — \(coordinator.storeReason)")
        try coordinator.waitForBackgroundImport()
        if coordinator.storeKind != .local {
            Console.out("now: \(coordinator.storeKind?.rawValue ?? "none") — \(coordinator.storeReason)")
        }
    }
}

struct RebuildCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rebuild",
        abstract: "Delete this device's store of the account and rebuild it from the container.",
        discussion: """
            The baseline and the logs rebuild it; transaction numbers continue where the container \
            says this peer stopped, so none is reused.
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
        let store = try coordinator.peer.map { $0.store }.orThrow("no store")
        Console.out("rebuilt: \(coordinator.storeReason); knowledge \(store.knowledge)")
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

extension Optional {
    func orThrow(_ message: String) throws -> Wrapped {
        guard let self else { throw CLIError(message) }
        return self
    }
}
