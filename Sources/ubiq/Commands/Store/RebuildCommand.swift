import ArgumentParser
import Ubiquity

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
