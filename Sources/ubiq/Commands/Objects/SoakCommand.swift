import ArgumentParser
import Foundation
import Ubiquity

struct SoakCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "soak",
        abstract: "Save N objects, one transaction each, for load and crash tests.",
        discussion: """
            Object i gets the natural key <prefix><i>; keys already alive are skipped, so a killed \
            soak can simply be run again and finishes the rest. Each new object's global ID is \
            printed (and flushed) right after its save returned, so every printed ID is a saved, \
            acknowledged change: kill the process at any moment and check that none is lost.

            Example: ubiq soak --count 1000 --prefix phone- --device ./phone
            """)

    @OptionGroup var global: GlobalOptions

    @Option(help: ArgumentHelp("How many objects.", valueName: "n"))
    var count: Int

    @Option(help: ArgumentHelp("The entity of the objects.", valueName: "name"))
    var entity = "Note"

    @Option(help: ArgumentHelp("The start of each natural key.", valueName: "key"))
    var prefix = "soak-"

    func run() throws {
        guard count >= 0 else { throw CLIError("--count must not be negative") }
        let soak = SoakRun(entity: entity, prefix: prefix, count: count)
        try global.withPeer { peer in try soak.run(on: peer) { Console.out($0.description) } }
    }
}
