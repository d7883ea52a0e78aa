import Foundation
import Ubiquity

/// Runs a scenario: creates its devices on its transport (each with a mirror and an emulated
/// iCloud daemon, unless `direct`; or spread over machines whose copies of the cloud a
/// file-sync engine keeps in step; with `ScenarioOptions.syncthing`, each on a Syncthing host
/// of its own), performs its steps in order, lets simulated time pass, and checks the
/// invariants after every step —
/// no saved change lost, no object that no save inserted, the container's logs bounded, and at
/// quiescence every running peer of an account converged. The first violation ends the run;
/// the result carries the seed that replays it.
public final class ScenarioRunner {
    let scenario: Scenario
    let options: ScenarioOptions
    /// The content key of every account under `--encrypted`, and the checks' sealing with it.
    let runKey: ContentKey?
    let runSealing: ContentSealing?
    let seed: UInt64
    let work: String
    let clock = SimulatedClock()
    /// How files travel between the devices' copies of the cloud (on Syncthing hosts, the
    /// iCloud transport with every device direct: Syncthing carries the files instead).
    let transport: any Transport
    /// The model every device starts with.
    let model: ObjectModel
    /// The models of the scenario's `model` steps, by file (`notes`: the built-in model).
    let stepModels: [String: ObjectModel]
    /// Every model hash a device may be on: the checks look for logs and baselines in each.
    var modelHashes: [String] { [model.hash] + stepModels.values.map(\.hash).filter { $0 != model.hash }.sorted() }
    var random: SeededGenerator
    var names: [String] = []
    var devices: [String: RunDevice] = [:]
    var ledger = SaveLedger()
    var timeline = Timeline()
    var violations: [Violation] = []
    /// The scenario's expectation lines, and how each went so far.
    var expectations: [ExpectationOutcome]
    var autoSync: Bool
    var peakLogFiles = 0
    var stepCount = 0
    var current: ScenarioStep?
    var baselineCache: [String: (signature: FileTree.Signature, knowledge: KnowledgeVector)] = [:]
    /// Under `--syncthing`: the hosts (one per device), what the runner last saw on them, and
    /// what the scenario asked for that Syncthing does its own way.
    var hosts: SyncthingHosts?
    var realTime = RealTimeState()
    var warnings: [String] = []
    var progress = ScenarioProgress()

    /// Runs `scenario` and reports; throws only when the run cannot start or a device process
    /// dies (a broken invariant is a violation in the result, not an error).
    public static func run(_ scenario: Scenario, options: ScenarioOptions = ScenarioOptions()) throws -> ScenarioResult {
        let scenario = try scenario.withPeers(options.peers).withRandomSteps(options.steps)
        let runner = try ScenarioRunner(scenario: scenario, options: options)
        return try runner.run()
    }

    private init(scenario: Scenario, options: ScenarioOptions) throws {
        self.scenario = scenario
        self.options = options
        seed = options.seed ?? scenario.seed
        random = SeededGenerator(seed: seed)
        autoSync = scenario.autoSync
        expectations = ExpectationOutcome.expectations(in: scenario.steps)
        work = options.workDirectory ?? ScenarioScratch.root + "ubiquity-scenario-\(scenario.name)-\(seed)-\(UUID().uuidString.prefix(8))"
        runKey = options.encrypted ? ContentKey.generate() : nil
        let scratch = work + "/.invariants"
        runSealing = runKey.map { ContentSealing(key: $0, scratchDirectory: scratch) }
        do {
            model = try scenario.modelFile.map { try ObjectModel.load(contentsOf: $0) } ?? .notes
            var stepModels: [String: ObjectModel] = [:]
            for file in scenario.stepModelFiles where stepModels[file] == nil {
                stepModels[file] = file == "notes" ? .notes : try ObjectModel.load(contentsOf: file)
            }
            self.stepModels = stepModels
        } catch {
            throw ScenarioError(source: scenario.source, line: 0, "cannot load the model: \(error)")
        }
        transport = try Self.makeTransport(scenario, options: options, work: work, seed: seed)
        // Checked before any host starts: a scenario that cannot run there says so at once.
        if options.syncthing != nil { warnings = try SyncthingPlan(scenario, extraFaults: options.extraFaults).warnings }
        if transport.kind == .fileSync { warnings = try FileSyncPlan(scenario, extraFaults: options.extraFaults).warnings }
        for warning in warnings { options.onStep?("warning: \(warning)") }
    }

    /// The transport the options ask for; the machines of `file-sync` from `--machines`, the
    /// scenario's `machines`, or 3 (fewer when there are fewer devices).
    private static func makeTransport(_ scenario: Scenario, options: ScenarioOptions, work: String, seed: UInt64) throws(ScenarioError) -> any Transport {
        switch options.transport {
        case .icloud:
            if options.machines != nil {
                throw ScenarioError(source: "--machines", line: 0, "machines belong to the file-sync transport: add --transport file-sync")
            }
            return ICloudTransport(cloud: EmulatedCloud(path: work + "/cloud"), watchMirrors: options.watchMirrors)
        case .fileSync:
            if options.syncthing != nil {
                throw ScenarioError(source: "--transport", line: 0, "--syncthing and --transport file-sync each say how files travel: choose one")
            }
            let machines = options.machines ?? scenario.machines ?? min(3, scenario.devices.count)
            guard (1...64).contains(machines) else {
                throw ScenarioError(source: options.machines == nil ? scenario.source : "--machines", line: 0, "machines must be from 1 to 64, not \(machines)")
            }
            return FileSyncTransport(machines: machines, root: work + "/machines", seed: seed &+ hash("file-sync"))
        }
    }

    private func run() throws -> ScenarioResult {
        let result: ScenarioResult
        do {
            // Devices close before their hosts go, and both before the work directory is removed.
            defer {
                for name in names { devices[name]?.host.close() }
                hosts?.stop()
            }
            if let syncthing = options.syncthing {
                hosts = try startHosts(syncthing)
            } else {
                for root in transport.cloudRoots(reachable: false) { try AtomicFile.makeDirectory(root) }
            }
            try createDevices()
            for step in scenario.steps.dropFirst(leadingFaults.count) where violations.isEmpty { try execute(step, substitutions: [:]) }
            if violations.isEmpty {
                current = ScenarioStep(line: 0, text: "end of scenario: settle and check", action: .settle)
                try settle()
            }
            result = try makeResult()
        }
        if result.passed && !options.keepWorkDirectory && options.workDirectory == nil {
            try? FileManager.default.removeItem(atPath: work)
        }
        return result
    }

    // MARK: Devices

    /// `faults` lines before any other step: they are the devices' plans from the start (so a
    /// clock skew they give is drawn when the device is made).
    var leadingFaults: [(device: String?, pairs: [(key: String, value: String?)])] {
        scenario.steps.prefix { if case .faults = $0.action { return true } else { return false } }.compactMap { step in
            if case let .faults(device, pairs) = step.action { return (device, pairs) }
            return nil
        }
    }

    private func createDevices() throws {
        for (index, declaration) in scenario.devices.enumerated() {
            // On Syncthing hosts, device N lives on host N and reads and writes that host's cloud.
            let syncthingHost = hosts.map { _ in index + 1 }
            let directory = (syncthingHost.map { hosts!.devices(of: $0) } ?? work + "/devices") + "/" + declaration.name
            let placement = transport.placement(of: declaration, index: index)
            let cloudRoot = syncthingHost.map { hosts!.cloud(of: $0) } ?? placement.cloudRoot
            let mirrorsCloud = placement.mirrorsCloud && hosts == nil
            let device = try Device.create(at: directory, userName: declaration.name, identityToken: declaration.account,
                                           deviceUUID: Self.uuid(seed: seed, name: declaration.name), mirrorsCloud: mirrorsCloud)
            var plan = declaration.faults ?? scenario.faults
            for faults in leadingFaults where faults.device == nil || faults.device == declaration.name {
                for (key, value) in faults.pairs { _ = plan.set(key, value) }
            }
            for (key, value) in options.extraFaults {
                if let problem = plan.set(key, value) { throw ScenarioError(source: "--faults", line: 0, problem) }
            }
            let skew = declaration.skew ?? (plan.skew.lowerBound == plan.skew.upperBound ? plan.skew.lowerBound : Double.random(in: plan.skew, using: &random))
            let setup = DeviceSetup(name: declaration.name, device: directory, cloud: cloudRoot, modelFile: scenario.modelFile,
                                    contentName: scenario.contentName, baselinePolicy: BaselinePolicyWire(scenario.baselinePolicy),
                                    skew: skew, logLevel: options.logLevel)
            let host: any DeviceHost
            if let executable = options.deviceExecutable {
                host = try ProcessDeviceHost(setup: setup, executable: executable, logFile: directory + ".log",
                                             launcher: syncthingHost.map { hosts!.launcher(for: $0) } ?? [])
            } else {
                host = try InProcessDeviceHost(setup: setup)
            }
            transport.attach(declaration.name, directory: directory, mirrorsCloud: mirrorsCloud, plan: plan, seed: seed &+ Self.hash(declaration.name))
            if let hosts, let syncthingHost { try hosts.carry(only: declaration.account, on: syncthingHost) }
            names.append(declaration.name)
            devices[declaration.name] = RunDevice(declaration: declaration, directory: directory, peerID: device.peerID(),
                                                  host: host, skew: skew, account: declaration.account,
                                                  cloudRoot: cloudRoot, syncthingHost: syncthingHost, model: model)
            timeline.lanes.append(declaration.name)
            recordJournal()
            if skew != 0 { timeline.markFaultPlan(0, declaration.name, .clockSkew(skew)) }
        }
        timeline.lanes += transport.lanes
        timeline.lanes.append("cloud")
    }

    /// A device UUID that depends only on the seed and the name, so peer IDs (and every
    /// tie broken by peer ID) are the same in every run of a seed.
    static func uuid(seed: UInt64, name: String) -> UUID {
        var generator = SeededGenerator(seed: seed &+ hash(name))
        var bytes = withUnsafeBytes(of: (generator.next(), generator.next())) { Array($0) }
        bytes[6] = (bytes[6] & 0x0F) | 0x40
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        return UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                           bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
    }

    /// FNV-1a: a hash of a name that is the same in every process (Swift's `hashValue` is not).
    static func hash(_ text: String) -> UInt64 {
        text.utf8.reduce(0xCBF2_9CE4_8422_2325) { ($0 ^ UInt64($1)) &* 0x0000_0100_0000_01B3 }
    }

    // MARK: Steps

    func execute(_ step: ScenarioStep, substitutions: [String: String]) throws {
        switch step.action {
        case let .repeated(times, body):
            for index in 0..<times {
                for inner in body where violations.isEmpty { try execute(inner, substitutions: substitutions.merging(["{i}": String(index)]) { $1 }) }
            }
            return
        case let .random(block):
            for index in 0..<block.count where violations.isEmpty { try executeRandom(block, index: index) }
            return
        default:
            break
        }
        current = step
        stepCount += 1
        reportProgress()
        options.onStep?("[+\(SimulatedDuration.text(clock.seconds))] \(Self.substitute(step.text, substitutions))")
        let violationsBefore = violations.count
        switch step.action {
        case let .device(target, verb):
            let verb = Self.substitute(verb, substitutions)
            let targets = target == "all" ? names.filter { eligible(devices[$0]!, for: verb) } : [target]
            for name in targets where violations.isEmpty { try perform(verb, on: devices[name]!) }
        case let .wait(range):
            let seconds = range.lowerBound == range.upperBound ? range.lowerBound : Double.random(in: range, using: &random)
            if hosts != nil { try realWait(seconds) } else { try advance(to: clock.seconds + seconds) }
        case .settle:
            try settle()
        case let .faults(target, pairs):
            transport.setFaults(pairs, for: target, at: clock.seconds)
            recordJournal()
        case let .quota(bytes):
            transport.setQuota(bytes)
            timeline.mark(clock.seconds, "cloud", .note, bytes.map { "quota \($0) bytes" } ?? "quota lifted")
        case let .autoSync(on):
            autoSync = on
        case .expectConverged:
            try checkConverged(required: true)
        case .expectConflictsRecorded:
            try checkConflictsRecorded()
        case let .expectBounded(bound):
            if peakLogFiles > bound { violate("the container held \(peakLogFiles) log files; the scenario expects at most \(bound)") }
        case .repeated, .random:
            break
        }
        if ExpectationOutcome.isExpectation(step.action) {
            recordExpectation(at: step.line, failure: violations.count > violationsBefore ? violations[violationsBefore].message : nil)
        }
        if violations.isEmpty { checkAfterStep() }
    }

    /// Counts one check of the expectation on `line`, which held unless it gave `failure`
    /// (before the invariants are checked, so a violation they find is not taken for the
    /// expectation's).
    private func recordExpectation(at line: Int, failure: String?) {
        guard let index = expectations.firstIndex(where: { $0.line == line }) else { return }
        if let failure {
            expectations[index].failedAt = clock.seconds
            expectations[index].failure = failure
        } else {
            expectations[index].held += 1
        }
    }

    /// One step of a `random` block: a weighted line, `?` replaced by a random device that can
    /// take the step, `{key}` by a random key, `{i}` by the step's index.
    private func executeRandom(_ block: RandomBlock, index: Int) throws {
        let total = block.choices.reduce(0) { $0 + $1.weight }
        var roll = Int.random(in: 0..<total, using: &random)
        guard let choice = block.choices.first(where: { roll -= $0.weight; return roll < 0 }) else { return }
        let substitutions = ["{i}": String(index), "{key}": "k\(Int.random(in: 0..<block.keys, using: &random))"]
        guard case let .device(target, verb) = choice.step.action, target == "?" else {
            try execute(choice.step, substitutions: substitutions)
            return
        }
        let candidates = names.filter { eligible(devices[$0]!, for: verb) }
        guard !candidates.isEmpty else { return }
        let name = candidates[Int.random(in: 0..<candidates.count, using: &random)]
        let drawn: (text: String, command: (UInt64) -> DeviceCommand)? = switch verb {
        case let .edit(entity): ("edit \(entity)", { .edit(entity: entity, key: substitutions["{key}"]!, roll: $0) })
        case let .mutate(pooled): ("mutate" + (pooled ? " pooled" : ""), { .mutate(key: substitutions["{key}"]!, pooled: pooled, roll: $0) })
        default: nil
        }
        if let drawn {
            // The key and the roll are drawn here, so the device does the same in every run.
            current = choice.step
            stepCount += 1
            reportProgress()
            options.onStep?("[+\(SimulatedDuration.text(clock.seconds))] \(name) \(drawn.text) \(substitutions["{key}"]!)")
            try send(drawn.command(random.next()), to: devices[name]!)
            if violations.isEmpty { checkAfterStep() }
            return
        }
        let concrete = ScenarioStep(line: choice.step.line, text: choice.step.text.replacingOccurrences(of: "?", with: name),
                                    action: .device(name, verb))
        try execute(concrete, substitutions: substitutions)
    }

    /// Whether `device` can take `verb` now (for `?` and `all`).
    private func eligible(_ device: RunDevice, for verb: DeviceVerb) -> Bool {
        switch verb {
        case .launch, .useModel: return !device.running
        case .online: return isOffline(device)
        case .offline: return (device.syncthingHost != nil || transport.canGoOffline(device.name)) && !isOffline(device)
        case .signIn, .signOut: return true
        case .removeContent, .rollBaseline:
            return device.running && device.storeKind == .account
        case .sync, .edit, .mutate, .insert, .update, .delete, .relate, .unrelate, .save, .quit:
            return device.running && device.account != nil
        default: return device.running
        }
    }

    private func perform(_ verb: DeviceVerb, on device: RunDevice) throws {
        let now = clock.seconds
        switch verb {
        case .offline where device.syncthingHost != nil, .online where device.syncthingHost != nil:
            setHostConnected(verb == .online, of: device)
        case .offline, .online:
            guard transport.canGoOffline(device.name) else { return violate("\(device.name) reads the cloud directly: it has no daemon to take offline") }
            transport.setConnected(verb == .online, device.name, at: now)
            recordJournal()
        case let .corruptLog(number):
            corruptLog(of: device, number: number)
        case .destroyBaseline:
            destroyBaseline(of: device)
        case let .expectStore(kind):
            let reply = try send(.probe(full: false), to: device)
            if reply.state?.storeKind != kind {
                violate("\(device.name) works on the \(reply.state?.storeKind?.rawValue ?? "no") store; the scenario expects the \(kind.rawValue) store")
            }
        case let .expectEvents(expected):
            if device.transitionsSinceExpect != expected {
                violate("\(device.name) posted [\(device.transitionsSinceExpect.joined(separator: ", "))]; the scenario expects [\(expected.joined(separator: ", "))]")
            }
            device.transitionsSinceExpect.removeAll()
        case let .expectValues(entity, key, values):
            try expectValues(entity, key, values, on: device)
        case let .expectDeleted(entity, key):
            if try send(.object(entity: entity, key: key), to: device).values != nil { violate("\(device.name) still has \(entity)/\(key) alive") }
        case let .expectCount(entity, count):
            let found = try send(.count(entity: entity), to: device).count ?? 0
            if found != count { violate("\(device.name) has \(found) live \(entity) objects; the scenario expects \(count)") }
        case let .expectUploadsWaiting(count):
            let folder = device.account.map { String(location(account: $0, root: "", hash: device.model.hash).logDirectory(of: device.peerID).dropFirst(1)) } ?? ""
            let found = device.syncthingHost == nil
                ? transport.uploadsWaiting(device.name, account: device.account, logFolder: folder) : logsWaitingOnHost(of: device)
            if found != count { violate("\(device.name) has \(found) upload(s) waiting; the scenario expects \(count)") }
        case let .expectConflicts(least):
            let found = try send(.probe(full: false), to: device).state?.conflictCount ?? 0
            if found < least { violate("\(device.name) recorded \(found) conflict(s); the scenario expects at least \(least)") }
        case let .edit(entity):
            try send(.edit(entity: entity, key: "k\(Int.random(in: 0..<100, using: &random))", roll: random.next()), to: device)
        case let .mutate(pooled):
            try send(.mutate(key: "k\(Int.random(in: 0..<100, using: &random))", pooled: pooled, roll: random.next()), to: device)
        case let .waitFor(event, within):
            try waitFor(event, on: device, until: now + within)
        default:
            try performInApp(verb, on: device, now: now)
        }
    }

    /// Checks the values of a live object as the app on `device` reads them.
    private func expectValues(_ entity: String, _ key: String, _ values: [PropertyAssignment], on device: RunDevice) throws {
        let reply = try send(.object(entity: entity, key: key), to: device)
        guard let actual = reply.values else { return violate("\(device.name) has no live \(entity)/\(key)") }
        let description = try device.model.entity(named: entity)
        for assignment in values {
            guard let attribute = description.attribute(assignment.name) else {
                return violate("\(entity) has no attribute '\(assignment.name)'")
            }
            let wanted = try assignment.value(for: attribute, of: description).jsonValue.text()
            let found = actual[assignment.name] ?? "null"
            if found != wanted { violate("\(device.name): \(entity)/\(key).\(assignment.name) is \(found); the scenario expects \(wanted)") }
        }
    }

    /// A step the app on `device` performs, with what the runner does around it: the account
    /// carried before a switch, the run's key provisioned, and what the answer tells after.
    private func performInApp(_ verb: DeviceVerb, on device: RunDevice, now: Double) throws {
        // Its host or machine carries the new account before the app saves in will-change,
        // as the emulated daemon stops the old account's transfers at the switch.
        switch verb {
        case let .signIn(token): try carryOnly(token, for: device)
        case .signOut: try carryOnly(nil, for: device)
        default: break
        }
        // --encrypted: the device holds the run's key for the account it is about to use.
        if let runKey {
            switch verb {
            case .launch: if let account = device.account { try provision(runKey, on: device, account: account) }
            case let .signIn(token): try provision(runKey, on: device, account: token)
            default: break
            }
        }
        let reply = try send(.perform(verb), to: device)
        if let error = reply.error {
            try carryOnly(device.account, for: device)
            return violate("\(device.name) \(Self.verbName(verb)) failed: \(error)")
        }
        switch verb {
        case .launch: device.running = true
        case .quit: device.running = false
        case let .useModel(file): device.model = stepModels[file] ?? device.model
        case .signIn, .signOut: device.account = reply.account ?? (try? Device.load(from: device.directory))?.identityToken
        case .removeContent:
            if let account = device.account { timeline.mark(now, device.name, .note, "removed the content of '\(account)'") }
        default: break
        }
    }

    private func provision(_ key: ContentKey, on device: RunDevice, account: String) throws {
        let configuration = PeerConfiguration(cloud: device.cloudRoot, device: device.directory, model: model, contentName: scenario.contentName)
        try UbiquityPeer.provisionContentKey(key, configuration: configuration, account: account)
    }

    /// Sends a command to a device and takes in what its answer tells.
    @discardableResult
    func send(_ command: DeviceCommand, to device: RunDevice) throws -> DeviceReply {
        let now = clock.seconds
        let reply = try device.host.send(DeviceRequest(now: now, command: command))
        device.account = reply.account ?? (reply.storeKind == nil ? device.account : nil)
        device.storeKind = reply.storeKind
        for event in reply.events {
            if event.hasPrefix("did-import:") {
                device.imports += 1
                timeline.mark(now, device.name, .importChanges, event)
                continue
            }
            device.transitions.append(event)
            device.transitionsSinceExpect.append(event)
            timeline.mark(now, device.name, .transition, event)
        }
        for save in reply.saves {
            ledger.record(save)
            device.saves += 1
            timeline.mark(now, device.name, .save, "saved \(save.storeKind.rawValue) transaction \(save.number) (\(save.writes.count) objects)")
        }
        for conflict in reply.conflicts { timeline.markConflict(now, device.name, conflict) }
        switch command {
        case .edit: if let error = reply.error { violate("\(device.name) edit failed: \(error)") }
        case .mutate: if let error = reply.error { violate("\(device.name) mutate failed: \(error)") }
        default: break
        }
        for refusal in reply.refusals { timeline.mark(now, device.name, .note, "mutate's save refused: \(refusal)") }
        if let disagreement = reply.syncStateDisagreement { violate("\(device.name): \(disagreement)") }
        for handover in reply.handovers { checkHandover(handover, of: device) }
        timeline.sample(device.name, time: now, knowledge: reply.knowledgeTotal, store: reply.storeKind.map { "\($0.rawValue)\(reply.account.map { " (\($0))" } ?? "")" })
        // Steps, and background work that did something, may have written into the mirror or cloud.
        switch command {
        case .perform where reply.wroteFiles, .edit, .mutate: transport.deviceWrote(device.name, at: now)
        case .runBackground where !reply.events.isEmpty || !reply.saves.isEmpty: transport.deviceWrote(device.name, at: now)
        default: break
        }
        return reply
    }

    func violate(_ message: String) {
        violations.append(Violation(source: scenario.source, line: current?.line ?? 0, step: current?.text ?? "", time: clock.seconds, message: message))
        timeline.mark(clock.seconds, "cloud", .violation, message)
    }

    static func verbName(_ verb: DeviceVerb) -> String {
        String(describing: verb).split(separator: "(").first.map(String.init) ?? "step"
    }

    static func substitute(_ text: String, _ substitutions: [String: String]) -> String {
        substitutions.reduce(text) { $0.replacingOccurrences(of: $1.key, with: $1.value) }
    }

    static func substitute(_ verb: DeviceVerb, _ substitutions: [String: String]) -> DeviceVerb {
        guard !substitutions.isEmpty else { return verb }
        func s(_ text: String) -> String { substitute(text, substitutions) }
        func a(_ values: [PropertyAssignment]) -> [PropertyAssignment] { values.map { PropertyAssignment(name: $0.name, text: s($0.text)) } }
        switch verb {
        case let .insert(entity, key, values): return .insert(entity: entity, key: s(key), values: a(values))
        case let .update(entity, key, values): return .update(entity: entity, key: s(key), values: a(values))
        case let .delete(entity, key): return .delete(entity: entity, key: s(key))
        case let .relate(entity, key, relationship, targetEntity, targetKey):
            return .relate(entity: entity, key: s(key), relationship: relationship, targetEntity: targetEntity, targetKey: s(targetKey))
        case let .unrelate(entity, key, relationship, targetEntity, targetKey):
            return .unrelate(entity: entity, key: s(key), relationship: relationship, targetEntity: targetEntity, targetKey: s(targetKey))
        case let .expectValues(entity, key, values): return .expectValues(entity: entity, key: s(key), values: a(values))
        case let .expectDeleted(entity, key): return .expectDeleted(entity: entity, key: s(key))
        case let .signIn(token): return .signIn(s(token))
        default: return verb
        }
    }
}

/// A device of a running scenario, as the runner tracks it.
final class RunDevice {
    let declaration: DeviceDeclaration
    let directory: String
    /// `<name>~<device UUID>`: the peer ID of its stores.
    let peerID: String
    let host: any DeviceHost
    let skew: Double
    var running = false
    var account: String?
    /// The store the app worked on at its last answer (`nil`: not running).
    var storeKind: StoreKind?
    var transitions: [String] = []
    var transitionsSinceExpect: [String] = []
    var saves = 0
    var imports = 0
    /// The generation of its Syncthing host's files it last synced at.
    var syncedGeneration = -1
    /// Files arrived that the app has not imported yet, and when it last imported on its own.
    var hasNews = false
    var lastAutoSync = -Double.infinity

    /// The copy of the cloud it reads and writes: the emulated cloud (direct) or its mirror's
    /// counterpart, its machine's copy (file-sync), or its Syncthing host's cloud.
    let cloudRoot: String
    /// Its Syncthing host (1…), under `--syncthing`.
    let syncthingHost: Int?

    /// The model its app opens the store with (a `model` step changes it).
    var model: ObjectModel

    init(declaration: DeviceDeclaration, directory: String, peerID: String, host: any DeviceHost, skew: Double, account: String?,
         cloudRoot: String, syncthingHost: Int?, model: ObjectModel) {
        self.model = model
        self.declaration = declaration
        self.cloudRoot = cloudRoot
        self.syncthingHost = syncthingHost
        self.directory = directory
        self.peerID = peerID
        self.host = host
        self.skew = skew
        self.account = account
    }

    var name: String { declaration.name }
}
