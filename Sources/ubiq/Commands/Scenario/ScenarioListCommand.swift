import ArgumentParser
import Foundation
import Ubiquity
import UbiquitySimulation

struct ScenarioListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List the built-in scenarios and what each shows.")

    @Flag(help: "Print JSON: [{name, path, about}].") var json = false

    func run() throws {
        let builtIns = ScenarioLibrary.builtIns(executable: ScenarioCommand.executable)
        guard !builtIns.isEmpty else {
            throw CLIError("no built-in scenarios found: run from the package folder (containers/scenarios) or set UBIQUITY_SCENARIOS")
        }
        var entries: [JSONValue] = []
        for (name, path) in builtIns {
            let about = (try? ScenarioParser.load(path: path))?.about.first ?? "(unreadable: run it to see why)"
            if json {
                entries.append(.object(["name": .string(name), "path": .string(path), "about": .string(about)]))
            } else {
                Console.out(name.padding(toLength: 18, withPad: " ", startingAt: 0) + about)
            }
        }
        if json { Console.out(JSONValue.array(entries).text()) }
    }
}
