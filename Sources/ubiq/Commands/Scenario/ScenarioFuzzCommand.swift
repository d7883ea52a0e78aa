import ArgumentParser
import Foundation
import Ubiquity
import UbiquitySimulation

struct ScenarioFuzzCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fuzz",
        abstract: "Run random scenarios drawn from seeds; one line per seed, then 'N passed, M failed'.",
        discussion: """
            Each seed draws devices, accounts, faults and a few hundred random steps (switches, \
            removals, rebuilds, offline windows among them), then settles and checks convergence. \
            With --model, four devices open their stores with that model and edit it at random: \
            inserts, updates, deletes and relationship changes of its entities, constrained values \
            drawn from a small pool so they collide on purpose. \
            Each seed prints one line (passed or FAILED, steps, wall time, the first violation); \
            runs longer than 10 s print their progress on stderr; the last line is 'N passed, M \
            failed', after the replay command of each failed seed. Exits 1 when a seed failed; \
            --verbose prints each failure's whole report, --print each seed's scenario.
            Examples:
              ubiq scenario fuzz --seeds 1..50
              ubiq scenario fuzz --seeds 1..1000 --transport file-sync
              ubiq scenario fuzz --seeds 1..20 --model MyApp.xcdatamodeld
            """)

    @Option(help: ArgumentHelp("The seeds: N, or A..B.", valueName: "range")) var seeds = "1..20"
    @Option(help: ArgumentHelp("Random steps per scenario.", valueName: "n")) var steps = RandomScenario.defaultSteps
    @Option(help: ArgumentHelp("How files travel: icloud (the emulated daemons) or file-sync (a Syncthing-like engine between machines).", valueName: "transport"))
    var transport = ScenarioTransport.icloud
    @Option(help: ArgumentHelp("With --transport file-sync: how many machines the devices are spread over (default 3, fewer for fewer devices).", valueName: "n"))
    var machines: Int?
    @Option(help: ArgumentHelp("A model (.xcdatamodeld, .xcdatamodel or plist) whose entities the scenarios edit, instead of the built-in Notes model.", valueName: "file"))
    var model: String?
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
        let modelPath = try model.map(Self.checkedModel)
        if print {
            for seed in low...high { Console.out(RandomScenario.text(seed: seed, steps: steps, model: modelPath)) }
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
                let scenario = try RandomScenario.scenario(seed: seed, steps: steps, model: modelPath, modelArgument: model)
                let result = try ScenarioRunner.run(scenario, options: options)
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
        if let model { command += " --model \(RandomScenario.shellWord(model))" }
        if processes { command += " --processes" }
        if transport != .icloud { command += " --transport \(transport.rawValue)" }
        if let machines { command += " --machines \(machines)" }
        for fault in faults { command += " --faults \(fault)" }
        return command
    }

    /// The model file as an absolute path (device processes run elsewhere), once it loads and
    /// has an entity to insert; what the draws cannot honour is said on stderr.
    static func checkedModel(_ path: String) throws -> String {
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        let loaded: ObjectModel
        do { loaded = try ObjectModel.load(contentsOf: absolute) } catch { throw CLIError("--model: \(Console.describe(error))") }
        guard loaded.entities.contains(where: { !$0.isAbstract }) else { throw CLIError("--model: \(path) has no entity that is not abstract") }
        for note in RandomScenario.notes(on: loaded) { Console.note("note: \(note)") }
        return absolute
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
