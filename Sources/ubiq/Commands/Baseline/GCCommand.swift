import ArgumentParser
import Ubiquity

struct GCCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gc",
        abstract: "Delete this peer's own logs that the baseline covers and every peer has passed.",
        discussion: "Example: ubiq gc --grace 86400 --device ./phone")

    @OptionGroup var global: GlobalOptions
    @Option(help: "Seconds after which a covered log goes even if a receipt lags (default 7 days).") var grace: Double?
    @Flag(help: "Print JSON.") var json = false

    func run() throws {
        try global.withPeer { peer in
            var policy = BaselinePolicy.apple
            if let grace { policy.gracePeriod = grace }
            let report = peer.collectGarbage(policy: policy)
            Console.out(json ? report.jsonValue.text() : report.line)
        }
    }
}
