import ArgumentParser
import Ubiquity

struct RemoveContentCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove-content",
        abstract: "Remove the content from the cloud: every peer's logs and receipts, the baselines, and this store's data.",
        discussion: """
            Other peers notice at their next sync (contentRemoved) and continue on an empty store; \
            one that removed it at the same time and lost carries what it saved since into this content. \
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
