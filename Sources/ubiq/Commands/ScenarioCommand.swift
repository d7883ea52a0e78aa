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
    @Option(name: .customLong("log-level"), help: ArgumentHelp("Apple's log level for the devices' own lines (0–3).", valueName: "n"))
    var logLevel = 0

    func run() throws {
        guard (0...3).contains(logLevel) else { throw CLIError("the log level must be 0, 1, 2 or 3, not \(logLevel)") }
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
        abstract: "Run random scenarios drawn from seeds; one line per seed, then 'N passed, M failed'.",
        discussion: """
            Each seed draws devices, accounts, faults and a few hundred random steps (switches, \
            removals, rebuilds, offline windows among them), then settles and checks convergence. \
            Each seed prints one line (passed or FAILED, steps, wall time, the first violation); \
            runs longer than 10 s print their progress on stderr; the last line is 'N passed, M \
            failed', after the replay command of each failed seed. Exits 1 when a seed failed; \
            --verbose prints each failure's whole report, --print each seed's scenario.
            Examples:
              ubiq scenario fuzz --seeds 1..50
              ubiq scenario fuzz --seeds 1..1000 --transport file-sync
            """)

    @Option(help: ArgumentHelp("The seeds: N, or A..B.", valueName: "range")) var seeds = "1..20"
    @Option(help: ArgumentHelp("Random steps per scenario.", valueName: "n")) var steps = RandomScenario.defaultSteps
    @Option(help: ArgumentHelp("How files travel: icloud (the emulated daemons) or file-sync (a Syncthing-like engine between machines).", valueName: "transport"))
    var transport = ScenarioTransport.icloud
    @Option(help: ArgumentHelp("With --transport file-sync: how many machines the devices are spread over (default 3, fewer for fewer devices).", valueName: "n"))
    var machines: Int?
    @Flag(help: "Encrypt every account's content: one key for the run, kept on every device (Docs/Scenarios.md).") var encrypted = false
    @Flag(help: "Run each device as its own OS process.") var processes = false
    @Flag(help: "Print each seed's scenario instead of running it.") var print = false
    @Flag(help: "Print the whole report of each seed that fails.") var verbose = false
    @Option(help: ArgumentHelp("A fault for every device on top of the drawn ones (repeatable).", valueName: "key=value"))
    var faults: [String] = []
    @Option(name: .customLong("log-level"), help: ArgumentHelp("Apple's log level for the devices' own lines (0–3); default: none, since faults injected on purpose make many.", valueName: "n"))
    var logLevel: Int?

    /// Seconds between two progress lines.
    static let progressInterval = 10.0

    func run() throws {
        let bounds = seeds.components(separatedBy: "..").map { UInt64($0) }
        guard (1...2).contains(bounds.count), let low = bounds.first ?? nil, let high = bounds.last ?? nil, low <= high else {
            throw CLIError("--seeds takes a number or a range such as 1..50, not '\(seeds)'")
        }
        guard steps > 0 else { throw CLIError("--steps must be positive") }
        if let logLevel, !(0...3).contains(logLevel) { throw CLIError("the log level must be 0, 1, 2 or 3, not \(logLevel)") }
        if machines != nil && transport != .fileSync { throw CLIError("--machines belongs to --transport file-sync") }
        if print {
            for seed in low...high { Console.out(RandomScenario.text(seed: seed, steps: steps)) }
            return
        }
        var options = ScenarioOptions()
        options.deviceExecutable = processes ? ScenarioCommand.executable : nil
        options.encrypted = encrypted
        options.extraFaults = try ScenarioRunCommand.parseFaults(faults)
        options.transport = transport
        options.machines = machines
        options.logLevel = logLevel
        let total = Double(high - low) + 1
        let started = ContinuousClock.now
        var lastProgress = started
        var passed = 0
        var replays: [String] = []
        for seed in low...high {
            let began = ContinuousClock.now
            var line = "seed \(seed): "
            do {
                let result = try ScenarioRunner.run(try RandomScenario.scenario(seed: seed, steps: steps), options: options)
                let time = Self.seconds(since: began)
                if result.passed {
                    passed += 1
                    line += "passed, \(result.steps) steps, \(time)"
                } else {
                    replays.append(result.replay)
                    let first = result.violations.first.map { Console.oneLine($0.description) } ?? "no violation recorded"
                    line += "FAILED, \(result.steps) steps, \(time): \(first)"
                    if verbose { line += "\n" + result.text }
                }
            } catch {
                replays.append(replay(seed))
                line += "FAILED, 0 steps, \(Self.seconds(since: began)): \(Console.oneLine(Console.describe(error)))"
            }
            Console.out(line)
            let done = Double(seed - low) + 1
            if done < total, RealTime.seconds(since: lastProgress) >= Self.progressInterval {
                lastProgress = ContinuousClock.now
                Console.note(Self.progress(done: done, total: total, elapsed: RealTime.seconds(since: started)))
            }
        }
        for replay in replays { Console.out("replay: \(replay)") }
        Console.out("\(passed) passed, \(replays.count) failed")
        if !replays.isEmpty { throw ExitCode(1) }
    }

    /// The command that runs `seed` again as this run did (for a seed whose run threw).
    func replay(_ seed: UInt64) -> String {
        var command = "ubiq scenario fuzz --seeds \(seed)"
        if steps != RandomScenario.defaultSteps { command += " --steps \(steps)" }
        if processes { command += " --processes" }
        if transport != .icloud { command += " --transport \(transport.rawValue)" }
        if let machines { command += " --machines \(machines)" }
        for fault in faults { command += " --faults \(fault)" }
        return command
    }

    /// `fuzz: 37/1000 seeds, 12.3 seeds/min, ETA 1h18m`.
    static func progress(done: Double, total: Double, elapsed: Double) -> String {
        let perMinute = done / max(elapsed, 0.001) * 60
        let left = (total - done) / max(perMinute, 0.001) * 60
        return "fuzz: \(Int(done))/\(Int(total)) seeds, \(String(format: "%.1f", perMinute)) seeds/min, ETA \(RealTime.text(left))"
    }

    static func seconds(since start: ContinuousClock.Instant) -> String {
        String(format: "%.1f s", RealTime.seconds(since: start))
    }
}

extension ScenarioTransport: ExpressibleByArgument {}

/// The device side of `--processes`: one device's app, driven over stdin and stdout.
struct ScenarioDeviceCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "device", abstract: "Serve one scenario device over stdin/stdout (started by 'scenario run --processes').",
        shouldDisplay: false)

    func run() throws { try DeviceServer.serve() }
}
