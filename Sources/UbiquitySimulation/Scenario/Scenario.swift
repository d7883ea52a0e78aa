import Foundation
import Ubiquity

/// A scenario, as read from a `.scenario` file (Docs/Scenarios.md): named devices, their
/// accounts and faults, and steps run in order.
public struct Scenario: Sendable {
    public var name: String
    /// What the scenario shows, in the author's words.
    public var about: [String] = []
    /// Where it was read from, for messages.
    public var source: String
    /// What `ubiq scenario run` takes to run it again: a built-in's name or a file's path.
    public var reference: String
    /// The whole command that replays it, where `run` cannot (a random scenario is drawn by
    /// `ubiq scenario fuzz`); the runner adds the options of the run.
    public var replayCommand: String?
    /// The seed used when the runner is given none.
    public var seed: UInt64 = 1
    /// A model file (relative to the scenario file), or `nil` for the built-in Notes model.
    public var modelFile: String?
    public var contentName = "Notes"
    /// Devices in declaration order.
    public var devices: [DeviceDeclaration] = []
    /// Set by `peers N`: the devices are peer1…peerN and `--peers` may change N.
    public var genericPeers: Int?
    /// Set by `machines N`: under the file-sync transport, how many machines the devices are
    /// spread over (`--machines` may change it).
    public var machines: Int?
    /// Faults of every device at the start; `devices[i].faults` overrides per device.
    public var faults = FaultPlan()
    public var baselinePolicy = BaselinePolicy.apple
    /// The most log files the container may hold after any step.
    public var logBound = 1_000
    /// Devices import when the daemon brings files, as a running app does.
    public var autoSync = true
    public var steps: [ScenarioStep] = []

    /// The devices after `--peers` (only for scenarios declared with `peers N`).
    func withPeers(_ count: Int?) throws(ScenarioError) -> Scenario {
        guard let count else { return self }
        guard genericPeers != nil else {
            throw ScenarioError(source: source, line: 0, "--peers applies to scenarios that declare 'peers N'; \(name) names its devices")
        }
        guard (1...64).contains(count) else { throw ScenarioError(source: source, line: 0, "--peers must be from 1 to 64, not \(count)") }
        if let step = Self.firstStep(in: steps, naming: { $0.hasPrefix("peer") && Int($0.dropFirst(4)).map { $0 > count } == true }),
           case let .device(target, _) = step.action {
            throw ScenarioError(source: source, line: step.line, "'\(target)' is not a device of this run: --peers \(count) makes peer1…peer\(count)")
        }
        var copy = self
        // Peers keep their own settings; new ones take the first peer's.
        let template = devices.first ?? DeviceDeclaration(name: "peer1", line: 0)
        copy.devices = (1...count).map { index in
            if let existing = devices.first(where: { $0.name == "peer\(index)" }) { return existing }
            var device = template
            device.name = "peer\(index)"
            return device
        }
        copy.genericPeers = count
        return copy
    }

    /// The first device step, inside `repeat` and `random` blocks too, whose device `matches`.
    static func firstStep(in steps: [ScenarioStep], naming matches: (String) -> Bool) -> ScenarioStep? {
        for step in steps {
            switch step.action {
            case let .device(target, _) where matches(target): return step
            case let .repeated(_, body): if let found = firstStep(in: body, naming: matches) { return found }
            case let .random(block): if let found = firstStep(in: block.choices.map(\.step), naming: matches) { return found }
            default: break
            }
        }
        return nil
    }

    /// The model files of every `model` step, in order (`notes`: the built-in model).
    public var stepModelFiles: [String] {
        func collect(_ steps: [ScenarioStep]) -> [String] {
            steps.flatMap { step -> [String] in
                switch step.action {
                case let .device(_, .useModel(path)): return [path]
                case let .repeated(_, body): return collect(body)
                case let .random(block): return collect(block.choices.map(\.step))
                default: return []
                }
            }
        }
        return collect(steps)
    }

    /// `model` steps with their files relative to `directory` (the scenario file's).
    func resolvingModelFiles(relativeTo directory: String) -> Scenario {
        func resolve(_ path: String) -> String {
            path == "notes" || path.hasPrefix("/") ? path : (directory as NSString).appendingPathComponent(path)
        }
        func rewrite(_ steps: [ScenarioStep]) -> [ScenarioStep] {
            steps.map { step in
                switch step.action {
                case let .device(name, .useModel(path)):
                    return ScenarioStep(line: step.line, text: step.text, action: .device(name, .useModel(resolve(path))))
                case let .repeated(times, body):
                    return ScenarioStep(line: step.line, text: step.text, action: .repeated(times: times, body: rewrite(body)))
                case var .random(block):
                    block.choices = block.choices.map { (weight: $0.weight, step: rewrite([$0.step])[0]) }
                    return ScenarioStep(line: step.line, text: step.text, action: .random(block))
                default:
                    return step
                }
            }
        }
        var copy = self
        copy.steps = rewrite(steps)
        return copy
    }

    /// The steps after `--steps` (the count of every `random` block).
    func withRandomSteps(_ count: Int?) throws(ScenarioError) -> Scenario {
        guard let count else { return self }
        guard count >= 0 else { throw ScenarioError(source: source, line: 0, "--steps must not be negative") }
        var found = false
        func rewrite(_ steps: [ScenarioStep]) -> [ScenarioStep] {
            steps.map { step in
                switch step.action {
                case let .random(block):
                    found = true
                    var block = block
                    block.count = count
                    return ScenarioStep(line: step.line, text: step.text, action: .random(block))
                case let .repeated(times, body):
                    return ScenarioStep(line: step.line, text: step.text, action: .repeated(times: times, body: rewrite(body)))
                default:
                    return step
                }
            }
        }
        var copy = self
        copy.steps = rewrite(steps)
        guard found else { throw ScenarioError(source: source, line: 0, "--steps applies to scenarios with a 'random' block; \(name) has none") }
        return copy
    }
}

/// One device of a scenario.
public struct DeviceDeclaration: Sendable {
    public var name: String
    /// The account it is signed in to at the start (`nil`: signed out).
    public var account: String? = Device.defaultAccount
    /// Its clock is off by this many seconds (`nil`: drawn from the faults' skew range).
    public var skew: Double?
    /// Its own faults, when they differ from the scenario's.
    public var faults: FaultPlan?
    /// Reads and writes the cloud directly, without a mirror and daemon.
    public var direct = false
    public var line: Int
}

/// One line of a scenario (or a block), with where it was written.
public struct ScenarioStep: Sendable {
    public let line: Int
    /// The line as written, for reports.
    public let text: String
    public let action: StepAction
}

/// What a step does.
public indirect enum StepAction: Sendable {
    /// A device step; the target is a device name, `all`, or `?` (a random eligible device).
    case device(String, DeviceVerb)
    /// Let time pass: a duration, or a range a random one is drawn from.
    case wait(ClosedRange<Double>)
    /// Let time pass until nothing moves (transfers done, imports done), then go on.
    case settle
    case faults(device: String?, [(key: String, value: String?)])
    case quota(Int64?)
    case autoSync(Bool)
    case expectConverged
    case expectConflictsRecorded
    case expectBounded(Int)
    case repeated(times: Int, body: [ScenarioStep])
    case random(RandomBlock)
}

/// `random N … end`: N steps, each drawn from weighted lines.
public struct RandomBlock: Sendable {
    public var count: Int
    /// Keys `k0…k(keys-1)` that `edit` and `{key}` draw from.
    public var keys: Int
    public var choices: [(weight: Int, step: ScenarioStep)]
}

/// A device's step.
public enum DeviceVerb: Sendable, Equatable, Codable {
    case launch(rebuild: Bool)
    /// The model the app opens its store with from its next launch (`notes`, or a model file
    /// relative to the scenario): an app update. The device must not be running.
    case useModel(String)
    case quit
    case insert(entity: String, key: String, values: [PropertyAssignment])
    case update(entity: String, key: String, values: [PropertyAssignment])
    case delete(entity: String, key: String)
    case relate(entity: String, key: String, relationship: String, targetEntity: String, targetKey: String)
    case unrelate(entity: String, key: String, relationship: String, targetEntity: String, targetKey: String)
    /// Insert, update or delete a random key of `entity`, then save (churn).
    case edit(entity: String)
    /// A random insert, update, delete or relationship change over the model's entities, then
    /// a save (`ubiq scenario fuzz --model`); `pooled`: an insert of every pooled constrained value.
    case mutate(pooled: Bool)
    case save
    case rollback
    case sync
    case policy(String)
    /// What the app does in will-change: save its edits, discard them, or nothing.
    case onWillChange(String)
    case signIn(String)
    case signOut
    case offline
    case online
    case removeContent
    case rollBaseline(force: Bool)
    /// Damages one of the device's own logs in the cloud (the newest, or transaction N).
    case corruptLog(Int64?)
    /// Deletes `baseline.zip` of the device's account from the cloud, as a broken tool (or a
    /// backup from before the first baseline, restored) would, whatever was collected under it.
    case destroyBaseline
    /// Turns encryption on for the account's content (the app on its account store).
    case encryptionEnable(passphrase: String)
    /// Gives the device the key of encrypted content (as `ubiq encryption unlock`; running or not).
    case encryptionUnlock(passphrase: String)
    case encryptionChange(from: String, to: String)
    /// `plain`, `sealed` or `locked`: what the device can do with its account's content.
    case expectEncryption(String)
    case expectStore(StoreKind)
    case expectEvents([String])
    case expectValues(entity: String, key: String, values: [PropertyAssignment])
    case expectDeleted(entity: String, key: String)
    case expectCount(entity: String, count: Int)
    case expectSaveFails
    case expectUploadsWaiting(Int)
    case expectConflicts(atLeast: Int)
    /// Lets time pass until the device posts this transition (not consumed: a later
    /// `expect events` still sees it), or fails after `within` seconds.
    case waitFor(event: String, within: Double)
}
