import ArgumentParser
import Ubiquity

struct DoctorCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "doctor",
        abstract: "Check the container and the device; print each problem with its repair.",
        discussion: "--fix repairs what is safe: stale temporary files, this peer's receipt, a fallback left behind.\nExample: ubiq doctor --fix --device ./phone")

    @OptionGroup var global: GlobalOptions
    @Flag(help: "Repair what is safe to repair.") var fix = false
    @Flag(help: "Print JSON.") var json = false

    func run() throws {
        // Without --fix the doctor only reads: it works while a `watch` owns the device.
        func examine(_ peer: UbiquityPeer) throws -> ([DoctorFinding], [String]) {
            let findings = try Doctor.examine(peer)
            return (findings, fix ? Doctor.fix(findings, peer: peer) : [])
        }
        let (findings, repairs) = try fix ? global.withPeer(examine) : global.withReadablePeer(examine)
        var allRepairs = repairs
        if fix, findings.contains(where: { $0.kind == .staleFallback }) {
            let coordinator = try UbiquitousStoreCoordinator(configuration: try global.configuration())
            try coordinator.addStore()
            try coordinator.waitForBackgroundImport()
            coordinator.close()
            allRepairs.append("finished the initial import and migrated the fallback")
        }
        if json {
            Console.out(JSONValue.object(["findings": .array(findings.map(\.jsonValue)), "repairs": .array(allRepairs.map(JSONValue.string))]).text())
            return
        }
        if findings.isEmpty { Console.out("no problems found") }
        for finding in findings {
            Console.out("problem: \(finding.message)")
            Console.out("  repair: \(finding.repair)")
        }
        for repair in allRepairs { Console.out("fixed: \(repair)") }
    }
}
