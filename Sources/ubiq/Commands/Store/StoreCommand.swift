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
        let handover = try StoreHandover.run(configuration: try global.unlockedConfiguration(),
                                             event: { [json] event in if !json { Console.out("event: \(event)") } },
                                             added: { [json] choice in if !json { Console.out("store: \(choice.kind.rawValue) — \(choice.reason)") } })
        let now = handover.now?.rawValue ?? "none"
        if json {
            Console.out(JSONValue.object(["store": .string(handover.first.kind.rawValue), "why": .string(handover.first.reason), "now": .string(now),
                                          "nowWhy": .string(handover.nowReason), "events": .array(handover.events.map { .string("\($0)") })]).text())
        } else if handover.now != .local {
            Console.out("now: \(now) — \(handover.nowReason)")
        }
    }
}
