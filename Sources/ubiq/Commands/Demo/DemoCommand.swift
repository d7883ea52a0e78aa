import ArgumentParser
import Foundation
import Ubiquity

struct DemoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Watch three devices edit, conflict and converge, in a few seconds.",
        discussion: """
            Runs a short story on a fresh temporary cloud with three devices (your --cloud and \
            --device are not touched): a conflict, a delete and a relationship, synced in an awkward \
            order, then a byte-for-byte comparison of the three stores. Exits 1 if they differ.

            Example: ubiq demo --keep
            """)

    @OptionGroup var global: GlobalOptions

    @Flag(help: "Keep the temporary cloud and devices to look at afterwards.")
    var keep = false

    func run() throws {
        let root = NSTemporaryDirectory() + "ubiquity-demo-" + UUID().uuidString.prefix(8).lowercased()
        var configuration = try global.configuration()
        configuration.model = .notes
        var converged = false
        defer {
            // A failed demo keeps its folder: it is the evidence.
            if keep || !converged {
                Console.out("The demo's cloud and devices are kept in \(root)")
            } else {
                try? FileManager.default.removeItem(atPath: root)
            }
        }
        let scenario = try DemoScenario(root: root, template: configuration)
        defer { scenario.close() }
        converged = try scenario.run()
        if !converged { throw ExitCode.failure }
    }
}
