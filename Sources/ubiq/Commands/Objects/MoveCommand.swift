import ArgumentParser
import Ubiquity

struct MoveCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "move",
        abstract: "Move a member of an ordered to-many relationship to another index.",
        discussion: "Example: ubiq move Playlist/mix songs Song/intro --to 0")

    @OptionGroup var global: GlobalOptions
    @OptionGroup var link: RelationshipLink

    @Option(help: "The member's new index (0 is first).")
    var to: Int

    func run() throws {
        try global.withPeer { peer in
            let context = peer.newContext()
            let sourceID = try GlobalID(link.source), targetID = try GlobalID(link.target)
            guard let object = try context.object(sourceID) else { throw StoreError.objectNotFound(sourceID) }
            try object.move(targetID, in: link.relationship, to: to)
            try context.save()
        }
    }
}
