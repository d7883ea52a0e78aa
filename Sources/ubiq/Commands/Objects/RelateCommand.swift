import ArgumentParser
import Ubiquity

struct RelateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "relate",
        abstract: "Point a relationship at an object (to-one: set it; to-many: add to it).",
        discussion: "Example: ubiq relate Note/groceries tags Tag/home; of an ordered to-many: ubiq relate Playlist/mix songs Song/intro --at 0")

    @OptionGroup var global: GlobalOptions
    @OptionGroup var link: RelationshipLink

    @Option(help: "Of an ordered to-many: insert at this index (0 is first; default: last).")
    var at: Int?

    func run() throws {
        try global.withPeer { peer in
            try link.change(in: peer.newContext(), present: true, at: at)
        }
    }
}
