import ArgumentParser
import Foundation
import Ubiquity
import UbiquitySimulation

struct ScenarioCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scenario",
        abstract: "Run sync scenarios on emulated devices: accounts, churn, first launch, offline edits, faults.",
        discussion: """
            Each device keeps a mirror of the cloud that an emulated iCloud daemon syncs under a \
            seeded fault plan; invariants are checked after every step. The format and the built-in \
            scenarios: Docs/Scenarios.md.
            """,
        subcommands: [ScenarioListCommand.self, ScenarioRunCommand.self, ScenarioFuzzCommand.self, ScenarioDeviceCommand.self])

    /// This executable's absolute path (device processes are started from it).
    static var executable: String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    }
}

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
            """)

    @Argument(help: ArgumentHelp("A built-in scenario's name (see 'ubiq scenario list') or a scenario file.", valueName: "name-or-file"))
    var scenario: String

    @Option(help: ArgumentHelp("The seed (default: the scenario's own).", valueName: "n")) var seed: UInt64?
    @Option(help: ArgumentHelp("How many devices, for scenarios declared with 'peers N'.", valueName: "n")) var peers: Int?
    @Option(help: ArgumentHelp("How many steps each 'random' block runs.", valueName: "n")) var steps: Int?
    @Option(help: ArgumentHelp("Write the timeline: HTML with an SVG (or only the SVG when FILE ends in .svg).", valueName: "file"))
    var report: String?
    @Flag(help: "Run each device as its own OS process.") var processes = false
    @Flag(help: ArgumentHelp(
        "Run each device as its own process on a Syncthing host of its own (network namespaces as root, else loopback ports), instead of through the emulated daemon.",
        discussion: "Needs syncthing and scripts/syncthing-hosts.sh (found from the package folder, or UBIQUITY_SYNCTHING_HOSTS); MM_LOOPBACK=1 asks for loopback hosts."))
    var syncthing = false
    @Option(help: ArgumentHelp("A fault for every device on top of the scenario's, e.g. drop=0.1 (repeatable).", valueName: "key=value"))
    var faults: [String] = []
    @Option(help: ArgumentHelp("Where to put the cloud and devices (kept); default: a temporary folder, removed after a pass.", valueName: "dir"))
    var work: String?
    @Flag(help: "Print each step as it runs.") var verbose = false
    @Flag(help: "Print the result as JSON.") var json = false
    @Option(name: .customLong("log-level"), help: ArgumentHelp("Apple's log level for the devices' own lines (0–3).", valueName: "n"))
    var logLevel = 0

    func run() throws {
        guard (0...3).contains(logLevel) else { throw CLIError("the log level must be 0, 1, 2 or 3, not \(logLevel)") }
        let executable = ScenarioCommand.executable
        let loaded = try ScenarioLibrary.load(scenario, executable: executable)
        var options = ScenarioOptions()
        options.seed = seed
        options.peers = peers
        options.steps = steps
        options.logLevel = logLevel
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
        let result: ScenarioResult
        do {
            result = try ScenarioRunner.run(loaded, options: options)
        } catch let unavailable as SyncthingUnavailable {
            throw CLIError("--syncthing: \(unavailable)")
        }
        if let report {
            let path = GlobalOptions.absolute(report)
            let text = path.hasSuffix(".svg") ? TimelineReport.svg(result) : TimelineReport.html(result)
            try AtomicFile.write(Array(text.utf8), to: path)
        }
        Console.out(json ? result.jsonValue.text() : result.text)
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

struct ScenarioFuzzCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fuzz",
        abstract: "Run random scenarios drawn from seeds; report each one that breaks an invariant.",
        discussion: """
            Each seed draws devices, accounts, faults and a few hundred random steps (switches, \
            removals, rebuilds, offline windows among them), then settles and checks convergence. \
            A failing seed replays with 'ubiq scenario fuzz --seeds N'; --print shows its scenario.
            Example: ubiq scenario fuzz --seeds 1..50
            """)

    @Option(help: ArgumentHelp("The seeds: N, or A..B.", valueName: "range")) var seeds = "1..20"
    @Option(help: ArgumentHelp("Random steps per scenario.", valueName: "n")) var steps = RandomScenario.defaultSteps
    @Flag(help: "Run each device as its own OS process.") var processes = false
    @Flag(help: "Print each seed's scenario instead of running it.") var print = false
    @Option(help: ArgumentHelp("A fault for every device on top of the drawn ones (repeatable).", valueName: "key=value"))
    var faults: [String] = []

    func run() throws {
        let bounds = seeds.components(separatedBy: "..").map { UInt64($0) }
        guard (1...2).contains(bounds.count), let low = bounds.first ?? nil, let high = bounds.last ?? nil, low <= high else {
            throw CLIError("--seeds takes a number or a range such as 1..50, not '\(seeds)'")
        }
        guard steps > 0 else { throw CLIError("--steps must be positive") }
        var failed: [UInt64] = []
        for seed in low...high {
            if print {
                Console.out(RandomScenario.text(seed: seed, steps: steps))
                continue
            }
            var options = ScenarioOptions()
            options.deviceExecutable = processes ? ScenarioCommand.executable : nil
            options.extraFaults = try ScenarioRunCommand.parseFaults(faults)
            let result = try ScenarioRunner.run(try RandomScenario.scenario(seed: seed, steps: steps), options: options)
            Console.out("seed \(seed): \(result.passed ? "passed" : "FAILED") (\(result.steps) steps, \(result.saves) saves, \(result.transfers.faults) faults)")
            if !result.passed {
                failed.append(seed)
                Console.out(result.text)
            }
        }
        if !failed.isEmpty {
            Console.out("failed seeds: \(failed.map(String.init).joined(separator: ", "))")
            throw ExitCode(1)
        }
    }
}

/// The device side of `--processes`: one device's app, driven over stdin and stdout.
struct ScenarioDeviceCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "device", abstract: "Serve one scenario device over stdin/stdout (started by 'scenario run --processes').",
        shouldDisplay: false)

    func run() throws { try DeviceServer.serve() }
}
