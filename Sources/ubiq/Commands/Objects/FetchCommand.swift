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
            entity's fetch returns its sub-entities' objects too. --request runs a fetch request template \
            of the model instead of ENTITY and --where, each $NAME of its predicate given by --variable \
            NAME=VALUE (read as the type of the attribute it is compared with); --sort, --offset and \
            --limit apply to it too.

            Example: ubiq fetch Note --where "pinned == true OR title BEGINSWITH[c] 'g'" --sort title:desc:ci --offset 10 --limit 10 --json
            Example: ubiq fetch --request NotesTitled --variable TITLE=Groceries --model MyApp.xcdatamodeld
            """)

    @OptionGroup var global: GlobalOptions

    @Argument(help: "The entity to fetch, e.g. Note (none with --request).")
    var entity: String?

    @Option(name: .customLong("where"), help: ArgumentHelp("A predicate, e.g. \"title == 'x' AND pinned == true\".", valueName: "expr"))
    var condition: String?

    @Option(help: ArgumentHelp("Sort by an attribute, ascending unless ':desc' follows; ':ci' compares strings case-insensitively.", valueName: "key[:desc][:ci]"))
    var sort: [String] = []

    @Option(help: ArgumentHelp("At most this many objects.", valueName: "n"))
    var limit: Int?

    @Option(help: ArgumentHelp("Skip this many matching objects first.", valueName: "n"))
    var offset: Int = 0

    @Option(help: ArgumentHelp("A fetch request template of the model, by name.", valueName: "name"))
    var request: String?

    @Option(name: .customLong("variable"), help: ArgumentHelp("A value for $NAME in the template's predicate; may be repeated.", valueName: "NAME=VALUE"))
    var variables: [String] = []

    @Flag(help: "Print a JSON array of {id, entity, values, relationships}, the shape of 'dump --json'.")
    var json = false

    func validate() throws {
        if request == nil, entity == nil { throw ValidationError("give an entity to fetch, or --request NAME") }
        if request != nil, entity != nil { throw ValidationError("--request fetches its template's entity: give no entity with it") }
        if request != nil, condition != nil { throw ValidationError("--where cannot be combined with --request: the template has its predicate") }
        if request == nil, !variables.isEmpty { throw ValidationError("--variable needs --request") }
        _ = try substitutionVariables()
    }

    /// `--variable NAME=VALUE`s, each value text read by the type it is compared with.
    func substitutionVariables() throws -> [String: SubstitutionValue] {
        var values: [String: SubstitutionValue] = [:]
        for assignment in variables {
            let parts = assignment.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = parts[0].hasPrefix("$") ? String(parts[0].dropFirst()) : String(parts[0])
            guard parts.count == 2, !name.isEmpty else { throw ValidationError("--variable takes NAME=VALUE, not '\(assignment)'") }
            guard values.updateValue(.text(String(parts[1])), forKey: name) == nil else { throw ValidationError("--variable \(name) is given twice") }
        }
        return values
    }

    func run() throws {
        if let limit, limit < 0 { throw CLIError("--limit must not be negative") }
        if offset < 0 { throw CLIError("--offset must not be negative") }
        let sortDescriptors = try sort.map(Self.sortDescriptor)
        let output = try global.withReadablePeer { peer in
            let store = peer.store
            var fetch: FetchRequest
            if let request {
                fetch = try store.model.fetchRequest(fromTemplate: request, substitutionVariables: try substitutionVariables())
                if let limit { fetch.limit = limit }
            } else {
                let entity = entity ?? ""
                let description = try store.model.entity(named: entity)
                let predicate = try condition.map { try FetchPredicate.parse($0, entity: description, model: store.model) }
                fetch = FetchRequest(entity: entity, predicate: predicate, limit: limit)
            }
            fetch.sortDescriptors = sortDescriptors
            fetch.offset = offset
            let snapshots = try store.fetch(fetch)
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
