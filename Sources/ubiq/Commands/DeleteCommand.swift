import ArgumentParser
import Ubiquity

struct DeleteCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete",
        abstract: "Delete an object (its delete rules apply: cascade, nullify, deny).",
        discussion: "Example: ubiq delete Note/groceries")

    @OptionGroup var global: GlobalOptions

    @Argument(help: "The object's global ID.")
    var id: String

    func run() throws {
        let id = try GlobalID(id)
        try global.withPeer { peer in
            let context = peer.newContext()
            guard let object = try context.object(id) else { throw StoreError.objectNotFound(id) }
            context.delete(object)
            try context.save()
        }
    }
}
