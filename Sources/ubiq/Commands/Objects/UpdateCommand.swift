import ArgumentParser
import Ubiquity

struct UpdateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "update",
        abstract: "Change values of an object.",
        discussion: """
            Same value rules as 'insert' ('attr=nil' clears a value, 'attr=@FILE' sets binary data).

            With --expect attr=value the change is made against that value, as if read before \
            the store changed: when the store holds another, --merge-policy decides \
            (Docs/MergePolicies.md); 'error', the default, refuses the save in one line.

            Example: ubiq update Note/groceries title="Groceries for Sunday" pinned=false
            Example: ubiq update Note/groceries title=Mine --expect title=Groceries --merge-policy object-trump
            """)

    @OptionGroup var global: GlobalOptions
    @OptionGroup var merge: MergePolicyOptions

    @Argument(help: "The object's global ID, e.g. Note/groceries.")
    var id: String

    @Argument(help: ArgumentHelp("Values to set.", valueName: "attr=value"))
    var assignments: [String] = []

    func run() throws {
        let id = try GlobalID(id)
        let assignments = try assignments.map(PropertyAssignment.init(parsing:))
        guard !assignments.isEmpty else { throw CLIError("nothing to update: give one or more attr=value") }
        try global.withPeer { peer in
            let assignments = try AttributeFileValues.resolve(assignments, entity: try peer.store.model.entity(named: id.entity), externalData: peer.store.externalData,
                                                               absolutePath: GlobalOptions.absolute)
            let context = peer.newContext()
            let object = try merge.object(id, in: context)
            for assignment in assignments { try assignment.apply(to: object, in: context) }
            try merge.save(context)
        }
    }
}
