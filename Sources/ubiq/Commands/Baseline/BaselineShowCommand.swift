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
        try global.withReadablePeer { peer in
            guard let metadata = peer.baselineMetadata, let location = peer.location else {
                Console.out(json ? "null" : "no baseline")
                return
            }
            if json { Console.out(metadata.jsonValue.text()); return }
            let size = (try? FileManager.default.attributesOfItem(atPath: location.baselinePath)[.size] as? NSNumber)?.intValue ?? 0
            let age = String(format: "%.0f", Date().timeIntervalSince1970 - metadata.created)
            Console.out("baseline by \(metadata.author), \(age) s old, \(size) bytes")
            Console.out("  knowledge: \(metadata.knowledge)")
            Console.out("  replaced:  \(metadata.previousKnowledge.description.isEmpty ? "(none)" : metadata.previousKnowledge.description)")
        }
    }
}
