import ArgumentParser
import Foundation
import Ubiquity
import UbiquitySimulation

struct ScenarioRunCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run a scenario and report; exits non-zero on any violated invariant or expectation.",
        discussion: """
            Examples:
              ubiq scenario run account-switch
              ubiq scenario run churn --seed 7 --steps 500 --processes --report churn.html
              ubiq scenario run ./my.scenario --faults drop=0.2 --faults delay=1s..2m
              ubiq scenario run account-switch --syncthing
              ubiq scenario run offline-edits --transport file-sync --machines 2
            """)

    @Argument(help: ArgumentHelp("A built-in scenario's name (see 'ubiq scenario list') or a scenario file.", valueName: "name-or-file"))
    var scenario: String

    @Option(help: ArgumentHelp("The seed (default: the scenario's own).", valueName: "n")) var seed: UInt64?
    @Option(help: ArgumentHelp("How many devices, for scenarios declared with 'peers N'.", valueName: "n")) var peers: Int?
    @Option(help: ArgumentHelp("How many steps each 'random' block runs.", valueName: "n")) var steps: Int?
    @Option(help: ArgumentHelp("Write the timeline: HTML with an SVG (or only the SVG when FILE ends in .svg).", valueName: "file"))
    var report: String?
    @Flag(help: "Encrypt every account's content: one key for the run, kept on every device (Docs/Scenarios.md).") var encrypted = false
    @Flag(help: "Run each device as its own OS process.") var processes = false
    @Flag(help: ArgumentHelp(
        "Run each device as its own process on a Syncthing host of its own (network namespaces as root, else loopback ports), instead of through the emulated daemon.",
        discussion: "Needs syncthing and scripts/syncthing-hosts.sh (found from the package folder, or UBIQUITY_SYNCTHING_HOSTS); MM_LOOPBACK=1 asks for loopback hosts."))
    var syncthing = false
    @Option(help: ArgumentHelp("How files travel: icloud (each device's emulated daemon) or file-sync (a Syncthing-like engine between machines).", valueName: "transport"))
    var transport = ScenarioTransport.icloud
    @Option(help: ArgumentHelp("With --transport file-sync: how many machines the devices are spread over (default: the scenario's 'machines', else 3).", valueName: "n"))
    var machines: Int?
    @Option(help: ArgumentHelp("A fault for every device on top of the scenario's, e.g. drop=0.1 (repeatable).", valueName: "key=value"))
    var faults: [String] = []
    @Option(help: ArgumentHelp("Where to put the cloud and devices (kept); default: a temporary folder, removed after a pass.", valueName: "dir"))
    var work: String?
    @Flag(help: "Print each step as it runs.") var verbose = false
    @Flag(help: "Print the result as JSON.") var json = false
    @Option(name: .customLong("log-level"), help: ArgumentHelp("Apple's log level for the devices' own lines (0–3); without it the devices print none, only the report.", valueName: "n"))
    var logLevel: Int?

    func run() throws {
        if let logLevel, !(0...3).contains(logLevel) { throw CLIError("the log level must be 0, 1, 2 or 3, not \(logLevel)") }
        if machines != nil && transport != .fileSync { throw CLIError("--machines belongs to --transport file-sync") }
        if syncthing && transport != .icloud { throw CLIError("--syncthing and --transport \(transport.rawValue) each say how files travel: choose one") }
        let executable = ScenarioCommand.executable
        let loaded = try ScenarioLibrary.load(scenario, executable: executable)
        var options = ScenarioOptions()
        options.seed = seed
        options.peers = peers
        options.steps = steps
        options.logLevel = logLevel
        options.transport = transport
        options.machines = machines
        options.encrypted = encrypted
        options.deviceExecutable = processes || syncthing ? executable : nil
        if syncthing {
            var hosts = SyncthingOptions()
            hosts.loopback = ProcessInfo.processInfo.environment["MM_LOOPBACK"].map { !$0.isEmpty } ?? false
            options.syncthing = hosts
        }
        if let work {
            options.workDirectory = GlobalOptions.absolute(work)
            options.keepWorkDirectory = true
        }
        options.extraFaults = try Self.parseFaults(faults)
        if verbose { options.onStep = { Console.out($0) } }
        // Only on a terminal: a transcript or a pipe gets the same output however long the run.
        if !verbose && isatty(STDERR_FILENO) != 0 { options.onProgress = { Console.note($0) } }
        let result: ScenarioResult
        do {
            result = try ScenarioRunner.run(loaded, options: options)
        } catch let unavailable as SyncthingUnavailable {
            throw CLIError("--syncthing: \(unavailable)")
        }
        var written: String?
        if let report {
            let path = GlobalOptions.absolute(report)
            let text = path.hasSuffix(".svg") ? TimelineReport.svg(result) : TimelineReport.html(result)
            try AtomicFile.write(Array(text.utf8), to: path)
            written = "report written to \(path)"
        }
        Console.out(json ? result.jsonValue.text() : result.text)
        // Last, where it is seen; beside JSON on stderr, so that stdout stays one document.
        if let written { json ? Console.note(written) : Console.out(written) }
        if !result.passed { throw ExitCode(1) }
    }

    /// `--faults key=value` options as the runner takes them.
    static func parseFaults(_ faults: [String]) throws -> [(key: String, value: String?)] {
        try faults.map { text in
            let parts = text.split(separator: "=", maxSplits: 1).map(String.init)
            guard let key = parts.first, !key.isEmpty else { throw CLIError("--faults takes key=value, such as drop=0.1") }
            return (key, parts.count == 2 ? parts[1] : nil)
        }
    }
}
