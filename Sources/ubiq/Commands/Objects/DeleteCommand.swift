import ArgumentParser
import Ubiquity

struct DeleteCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete",
        abstract: "Delete an object (its delete rules apply: cascade, nullify, deny).",
        discussion: """
            With --expect attr=value the delete is made against that value, as if read before the \
            store changed: when the store holds another, --merge-policy decides (store-trump and \
            rollback keep the object, object-trump and overwrite delete it, error refuses).

            Example: ubiq delete Note/groceries
            Example: ubiq delete Note/groceries --expect title=Groceries --merge-policy rollback
            """)

    @OptionGroup var global: GlobalOptions
    @OptionGroup var merge: MergePolicyOptions

    @Argument(help: "The object's global ID.")
    var id: String

    func run() throws {
        let id = try GlobalID(id)
        try global.withPeer { peer in
            let context = peer.newContext()
            context.delete(try merge.object(id, in: context))
            try merge.save(context)
        }
    }
}
