import ArgumentParser
import Ubiquity

struct StoreCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "store",
        abstract: "Add the store as an app would, and say which store the device is on and why.",
        discussion: """
            On the first use of an account the device works on a fallback store while the initial \
            import runs; this command waits for the handover and reports it.
            Example: ubiq store --device ./phone
            """)

    @OptionGroup var global: GlobalOptions
    @Flag(help: "Print JSON: {store, why, now, nowWhy, events: [text]}.") var json = false

    func run() throws {
        let coordinator = try UbiquitousStoreCoordinator(configuration: try global.configuration())
        defer { coordinator.close() }
        let events = EventLines()
        coordinator.observe { [json] event in
            if json { events.append("\(event)") } else { Console.out("event: \(event)") }
        }
        let choice = try coordinator.addStore()
        let first = (choice.kind.rawValue, choice.reason)
        if !json { Console.out("store: \(first.0) — \(first.1)") }
        try coordinator.waitForBackgroundImport()
        let now = (coordinator.storeKind?.rawValue ?? "none", coordinator.storeReason)
        if json {
            Console.out(JSONValue.object(["store": .string(first.0), "why": .string(first.1), "now": .string(now.0),
                                          "nowWhy": .string(now.1), "events": .array(events.lines.map(JSONValue.string))]).text())
        } else if coordinator.storeKind != .local {
            Console.out("now: \(now.0) — \(now.1)")
        }
    }
}
