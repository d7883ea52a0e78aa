import ArgumentParser
import Ubiquity

struct FetchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fetch",
        abstract: "List live objects of an entity, filtered and sorted.",
        discussion: """
            --where takes a predicate: comparisons with == != < <= > >= CONTAINS BEGINSWITH, combined \
            with AND, OR, NOT and parentheses; nil is the absent value. --sort may be repeated. A parent \
            entity's fetch returns its sub-entities' objects too.

            Example: ubiq fetch Note --where "pinned == true OR title BEGINSWITH 'G'" --sort title:desc --limit 10 --json
            """)

    @OptionGroup var global: GlobalOptions

    @Argument(help: "The entity to fetch, e.g. Note.")
    var entity: String

    @Option(name: .customLong("where"), help: ArgumentHelp("A predicate, e.g. \"title == 'x' AND pinned == true\".", valueName: "expr"))
    var condition: String?

    @Option(help: ArgumentHelp("Sort by an attribute, ascending unless ':desc' follows.", valueName: "key[:desc]"))
    var sort: [String] = []

    @Option(help: ArgumentHelp("At most this many objects.", valueName: "n"))
    var limit: Int?

    @Flag(help: "Print a JSON array of {id, entity, values, relationships}, the shape of 'dump --json'.")
    var json = false

    func run() throws {
        if let limit, limit < 0 { throw CLIError("--limit must not be negative") }
        let sortDescriptors = try sort.map(Self.sortDescriptor)
        let output = try global.withReadablePeer { peer in
            let store = peer.store
            let description = try store.model.entity(named: entity)
            let predicate = try condition.map { try FetchPredicate.parse($0, entity: description) }
            let snapshots = try store.fetch(FetchRequest(entity: entity, predicate: predicate, sortDescriptors: sortDescriptors, limit: limit))
            // A fetch of a parent entity returns its sub-entities' objects: each shows its own entity.
            func entityOf(_ snapshot: ObjectSnapshot) throws -> EntityDescription { try store.model.entity(named: snapshot.id.entity) }
            if json { return JSONValue.array(try snapshots.map { try store.json(of: $0, entity: try entityOf($0)) }).text() }
            return try snapshots.map { try ObjectText.line($0, entity: try entityOf($0), store: store) }.joined(separator: "\n")
        }
        if !output.isEmpty { Console.out(output) }
    }

    static func sortDescriptor(_ text: String) throws -> FetchSortDescriptor {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count <= 2, let key = parts.first, !key.isEmpty else { throw CLIError("--sort takes key or key:asc or key:desc, not '\(text)'") }
        switch parts.count == 2 ? parts[1].lowercased() : "asc" {
        case "asc": return FetchSortDescriptor(String(key), ascending: true)
        case "desc": return FetchSortDescriptor(String(key), ascending: false)
        default: throw CLIError("--sort takes key or key:asc or key:desc, not '\(text)'")
        }
    }
}
