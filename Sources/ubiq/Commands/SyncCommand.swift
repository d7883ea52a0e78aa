import ArgumentParser
import Ubiquity

struct SyncCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Export waiting logs, import other peers' logs, and print what happened.",
        discussion: "Example: ubiq sync --device ./phone")

    @OptionGroup var global: GlobalOptions
    @Flag(help: "Print JSON.") var json = false

    func run() throws {
        let summary = try global.withPeer { peer in try peer.sync() }
        Console.out(json ? summary.jsonValue.text() : summary.line)
    }
}
