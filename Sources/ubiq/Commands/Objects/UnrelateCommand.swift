import ArgumentParser
import Ubiquity

struct UnrelateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "unrelate",
        abstract: "Remove an object from a relationship (to-one: clear it if it points there).",
        discussion: "Example: ubiq unrelate Note/groceries tags Tag/home")

    @OptionGroup var global: GlobalOptions
    @OptionGroup var link: RelationshipLink

    func run() throws {
        try global.withPeer { peer in
            try link.change(in: peer.newContext(), present: false)
        }
    }
}
