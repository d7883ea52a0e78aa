import ArgumentParser
import Ubiquity

struct StatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "The device (account, store and why, knowledge, outbox, last import) and the container (peers, baseline, quarantine, file states).",
        discussion: "File states as Xcode's iCloud report: Current, Stored in Cloud, Data Not Present, Excluded.\nExample: ubiq status --json --device ./phone")

    @OptionGroup var global: GlobalOptions
    @Flag(help: "Print JSON.") var json = false

    func run() throws {
        let report = try global.withReadablePeer { peer in try ContainerReport.make(for: peer) }
        Console.out(json ? report.jsonValue.text() : report.text)
    }
}
