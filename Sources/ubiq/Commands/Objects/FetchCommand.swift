import ArgumentParser
import Ubiquity

struct FetchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fetch",
        abstract: "List live objects of an entity, filtered and sorted.",
        discussion: """
            --where takes an NSPredicate: comparisons with == != < <= > >= CONTAINS BEGINSWITH ENDSWITH \
            LIKE MATCHES IN, [c] and [d] modifiers, key paths through to-one relationships (folder.name), \
            ANY/ALL/NONE and @count on to-many ones, combined with AND, OR, NOT and parentheses; nil is \
            the absent value. --sort may be repeated (key:desc, key:ci for case-insensitive). A parent \
            entity's fetch returns its sub-entities' objects too.

            Example: ubiq fetch Note --where "pinned == true OR title BEGINSWITH[c] 'g'" --sort title:desc:ci --offset 10 --limit 10 --json
            """)

    @OptionGroup var global: GlobalOptions

    @Argument(help: "The entity to fetch, e.g. Note.")
    var entity: String

    @Option(name: .customLong("where"), help: ArgumentHelp("A predicate, e.g. \"title == 'x' AND pinned == true\".", valueName: "expr"))
    var condition: String?

    @Option(help: ArgumentHelp("Sort by an attribute, ascending unless ':desc' follows; ':ci' compares strings case-insensitively.", valueName: "key[:desc][:ci]"))
    var sort: [String] = []

    @Option(help: ArgumentHelp("At most this many objects.", valueName: "n"))
    var limit: Int?

    @Option(help: ArgumentHelp("Skip this many matching objects first.", valueName: "n"))
    var offset: Int = 0

    @Flag(help: "Print a JSON array of {id, entity, values, relationships}, the shape of 'dump --json'.")
    var json = false

    func run() throws {
        if let limit, limit < 0 { throw CLIError("--limit must not be negative") }
        if offset < 0 { throw CLIError("--offset must not be negative") }
        let sortDescriptors = try sort.map(Self.sortDescriptor)
        let output = try global.withReadablePeer { peer in
            let store = peer.store
            let description = try store.model.entity(named: entity)
            let predicate = try condition.map { try FetchPredicate.parse($0, entity: description, model: store.model) }
            let snapshots = try store.fetch(FetchRequest(entity: entity, predicate: predicate, sortDescriptors: sortDescriptors, limit: limit, offset: offset))
            // A fetch of a parent entity returns its sub-entities' objects: each shows its own entity.
            func entityOf(_ snapshot: ObjectSnapshot) throws -> EntityDescription { try store.model.entity(named: snapshot.id.entity) }
            if json { return JSONValue.array(try snapshots.map { try store.json(of: $0, entity: try entityOf($0)) }).text() }
            return try snapshots.map { try ObjectText.line($0, entity: try entityOf($0), store: store) }.joined(separator: "\n")
        }
        if !output.isEmpty { Console.out(output) }
    }

    static func sortDescriptor(_ text: String) throws -> FetchSortDescriptor {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        let usage = CLIError("--sort takes key, key:asc or key:desc, each optionally followed by :ci, not '\(text)'")
        guard parts.count <= 3, let key = parts.first, !key.isEmpty else { throw usage }
        var descriptor = FetchSortDescriptor(String(key))
        var modifiers = parts.dropFirst().map { $0.lowercased() }
        if modifiers.last == "ci" {
            descriptor.caseInsensitive = true
            modifiers.removeLast()
        }
        guard modifiers.count <= 1 else { throw usage }
        switch modifiers.first ?? "asc" {
        case "asc": descriptor.ascending = true
        case "desc": descriptor.ascending = false
        default: throw usage
        }
        return descriptor
    }
}
