import ArgumentParser
import Ubiquity

struct SyncCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Export waiting logs, import other peers' logs, and print what happened.",
        discussion: "Example: ubiq sync --device ./phone")

    @OptionGroup var global: GlobalOptions

    func run() throws {
        let line = try global.withPeer { peer in try peer.sync().line }
        Console.out(line)
    }
}
