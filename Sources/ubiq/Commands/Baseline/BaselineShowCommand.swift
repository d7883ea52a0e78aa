import ArgumentParser
import Foundation
import Ubiquity

struct BaselineShowCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Print the current baseline: author, knowledge, age and size.",
        discussion: "Example: ubiq baseline show --json --device ./phone")

    @OptionGroup var global: GlobalOptions
    @Flag(help: "Print JSON.") var json = false

    func run() throws {
        guard let summary = try global.withReadablePeer({ peer in peer.baselineSummary }) else {
            return Console.out(json ? "null" : "no baseline")
        }
        let metadata = summary.metadata
        if json { return Console.out(metadata.jsonValue.text()) }
        let made = ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: metadata.created))
        Console.out("baseline by \(metadata.author), made \(made), \(summary.bytes) bytes")
        Console.out("  knowledge: \(metadata.knowledge)")
        Console.out("  replaced:  \(metadata.previousKnowledge.description.isEmpty ? "(none)" : metadata.previousKnowledge.description)")
    }
}
