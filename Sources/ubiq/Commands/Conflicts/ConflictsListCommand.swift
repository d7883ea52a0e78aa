import ArgumentParser
import Ubiquity

struct ConflictsListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list", abstract: "List the conflict history (the default).", discussion: "Example: ubiq conflicts list --device ./phone")

    @OptionGroup var global: GlobalOptions
    @Flag(help: "Print JSON.") var json = false

    func run() throws {
        let conflicts = try global.withReadablePeer { peer in try peer.store.conflicts() }
        if json {
            Console.out(JSONValue.array(conflicts.map(\.jsonValue)).text())
            return
        }
        if conflicts.isEmpty { Console.out("no conflicts recorded") }
        for conflict in conflicts {
            Console.out("#\(conflict.id) \(conflict.object).\(conflict.property) [\(conflict.kind.rawValue)]: \(conflict.winnerValue.text()) (\(conflict.winnerPeer)) won over \(conflict.loserValue.text()) (\(conflict.loserPeer))")
        }
    }
}
