import ArgumentParser
import Ubiquity

struct InsertCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "insert",
        abstract: "Save a new object and print its global ID.",
        discussion: """
            Values are read by the attribute's type; 'attr=nil' leaves a value absent, 'attr=' is the \
            empty string, a to-one relationship takes a global ID, a binary attribute takes 'attr=@FILE' \
            (the file's bytes) or 'attr=base64:…'. With --id the object gets a natural key (global ID \
            <Entity>/<key>) instead of a UUID.

            Example: ubiq insert Note --id groceries title=Groceries pinned=true folder=Folder/home
            """)

    @OptionGroup var global: GlobalOptions

    @Argument(help: "The entity of the new object, e.g. Note.")
    var entity: String

    @Option(name: .customLong("id"), help: ArgumentHelp("A natural key for the object's global ID.", valueName: "key"))
    var key: String?

    @Argument(help: ArgumentHelp("Values to set.", valueName: "attr=value"))
    var assignments: [String] = []

    func run() throws {
        let assignments = try assignments.map(PropertyAssignment.init(parsing:))
        let id = try global.withPeer { peer in
            let assignments = try AttributeFileValues.resolve(assignments, entity: try peer.store.model.entity(named: entity), externalData: peer.store.externalData,
                                                               absolutePath: GlobalOptions.absolute)
            let context = peer.newContext()
            let object = try context.insert(entity, key: key)
            for assignment in assignments { try assignment.apply(to: object, in: context) }
            try context.save()
            return object.id
        }
        Console.out(id.description)
    }
}
