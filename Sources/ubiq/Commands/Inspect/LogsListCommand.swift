import ArgumentParser
import Foundation
import Ubiquity

struct LogsListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list", abstract: "Every log file with its state (paths relative to the ubiquity root).",
        discussion: "Example: ubiq logs list --device ./phone")

    @OptionGroup var global: GlobalOptions
    @Flag(help: "Print JSON.") var json = false

    func run() throws {
        let report = try global.withReadablePeer { peer in try ContainerReport.make(for: peer) }
        let logs = report.logFiles
        if json {
            Console.out(JSONValue.array(logs.map { .object(["path": .string($0.path), "state": .string($0.state.rawValue)]) }).text())
        } else {
            for log in logs { Console.out("\(log.state.rawValue.padding(toLength: 16, withPad: " ", startingAt: 0)) \(log.path)") }
        }
    }
}
