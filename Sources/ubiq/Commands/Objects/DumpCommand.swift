import ArgumentParser
import Ubiquity

struct DumpCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dump",
        abstract: "Print every live object of the store.",
        discussion: """
            With --json the output is canonical: two peers that converged print byte-identical text, \
            so 'cmp' or 'diff' of two dumps checks convergence.

            Example: ubiq dump --json --device ./phone > phone.json
            """)

    @OptionGroup var global: GlobalOptions

    @Flag(help: "Canonical JSON: objects sorted by global ID, keys sorted.")
    var json = false

    func run() throws {
        let output = try global.withReadablePeer { peer in
            json ? try peer.store.dump().text() : try Self.listing(of: peer.store)
        }
        if !output.isEmpty { Console.out(output) }
    }

    /// Entity by entity, a heading with the count and one line per object.
    static func listing(of store: PersistentStore) throws -> String {
        var lines: [String] = []
        for entity in store.model.entities.sorted(by: { $0.name < $1.name }) {
            let snapshots = try store.fetch(FetchRequest(entity: entity.name, includesSubentities: false))
            lines.append("\(entity.name) (\(snapshots.count))")
            for snapshot in snapshots { lines.append("  " + (try ObjectText.line(snapshot, entity: entity, store: store))) }
        }
        return lines.joined(separator: "\n")
    }
}
