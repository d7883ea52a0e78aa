import ArgumentParser
import Ubiquity

struct DoctorCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "doctor",
        abstract: "Check the container and the device; print each problem with its repair.",
        discussion: "--fix repairs what is safe: stale temporary files, this peer's receipt, a fallback left behind.\nExit status: 0 when no problem is left, 1 when a problem is found (with --fix: one it could not repair).\nExample: ubiq doctor --fix --device ./phone")

    @OptionGroup var global: GlobalOptions
    @Flag(help: "Repair what is safe to repair.") var fix = false
    @Flag(help: "Print JSON.") var json = false

    func run() throws {
        let checkup = try Doctor.checkUp(configuration: try global.configuration(), fix: fix)
        if json {
            Console.out(checkup.jsonValue(wordingRemedies: \.command).text())
        } else {
            if checkup.findings.isEmpty { Console.out("no problems found") }
            for finding in checkup.findings {
                Console.out("problem: \(finding.message)")
                Console.out("  repair: \(finding.repair.commandText)")
            }
            for repair in checkup.repairs { Console.out("fixed: \(repair)") }
        }
        // A script (or CI) asks the status, as of fsck: found problems are a failure.
        if !checkup.unresolved.isEmpty { throw ExitCode(1) }
    }
}
