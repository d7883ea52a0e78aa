import Foundation
import Ubiquity

/// Reads the scenario format of Docs/Scenarios.md: one step per line, `#` comments, header
/// lines before the first step, `repeat`/`random` blocks closed by `end`. Every mistake is
/// reported with its line.
public enum ScenarioParser {
    /// Reads the scenario file at `path`.
    public static func load(path: String) throws(ScenarioError) -> Scenario {
        let source = (path as NSString).lastPathComponent
        guard let bytes = try? AtomicFile.read(path, limit: 4 << 20, followingLinks: true) else {
            throw ScenarioError(source: path, line: 0, "cannot read the scenario file")
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw ScenarioError(source: source, line: 0, "the scenario file is not UTF-8 text")
        }
        var scenario = try parse(text, source: source)
        scenario.reference = path
        let directory = (path as NSString).deletingLastPathComponent
        if let model = scenario.modelFile, !model.hasPrefix("/") {
            scenario.modelFile = (directory as NSString).appendingPathComponent(model)
        }
        return scenario.resolvingModelFiles(relativeTo: directory)
    }

    /// Reads scenario text; `source` names it in errors.
    public static func parse(_ text: String, source: String) throws(ScenarioError) -> Scenario {
        var reader = Reader(source: source, lines: text.components(separatedBy: "\n"))
        return try reader.read()
    }

    static let transitions = ["accountAdded", "accountRemoved", "contentRemoved", "initialImportCompleted"]
    static let policies = ["error", "store-trump", "object-trump", "overwrite", "rollback"]
}

private struct Reader {
    let source: String
    let lines: [String]
    var index = 0
    var scenario: Scenario
    var sawStep = false

    init(source: String, lines: [String]) {
        self.source = source
        self.lines = lines
        scenario = Scenario(name: (source as NSString).deletingPathExtension, source: source, reference: source)
    }

    func error(_ line: Int, _ message: String) -> ScenarioError { ScenarioError(source: source, line: line, message) }

    mutating func read() throws(ScenarioError) -> Scenario {
        scenario.steps = try readSteps(until: nil)
        if scenario.devices.isEmpty { throw error(0, "no devices: declare them with 'devices NAME…' or 'peers N'") }
        return scenario
    }

    /// The next line that holds words (its number, text and words), or `nil` at the end.
    mutating func nextLine() throws(ScenarioError) -> (number: Int, raw: String, words: [String])? {
        while index < lines.count {
            let number = index + 1
            let raw = lines[index]
            index += 1
            let words = try tokens(raw, line: number)
            if !words.isEmpty { return (number, raw, words) }
        }
        return nil
    }

    /// Steps up to `end` (in a block) or the end of the file.
    mutating func readSteps(until closer: (name: String, line: Int)?) throws(ScenarioError) -> [ScenarioStep] {
        var steps: [ScenarioStep] = []
        while let (number, raw, words) = try nextLine() {
            let first = words[0]
            if first == "end" {
                guard closer != nil else { throw error(number, "'end' without a 'repeat' or 'random' block") }
                guard words.count == 1 else { throw error(number, "'end' takes nothing after it") }
                return steps
            }
            if try header(words, line: number) { continue }
            // Settings that are also steps (faults, quota, auto-sync) may sit among the header.
            if !["faults", "quota", "auto-sync"].contains(first) { sawStep = true }
            steps.append(ScenarioStep(line: number, text: raw.trimmingCharacters(in: .whitespaces), action: try step(words, line: number, inRandom: false)))
        }
        if let closer { throw error(closer.line, "'\(closer.name)' block is never closed with 'end'") }
        return steps
    }

    // MARK: Header

    /// Reads a header line; `false` when the line is a step.
    mutating func header(_ words: [String], line: Int) throws(ScenarioError) -> Bool {
        let keyword = words[0], rest = Array(words.dropFirst())
        let keywords = ["scenario", "about", "seed", "model", "content", "devices", "peers", "device", "bound", "baseline", "machines"]
        guard keywords.contains(keyword) else { return false }
        if sawStep, keyword != "about" { throw error(line, "'\(keyword)' belongs before the first step") }
        switch keyword {
        case "scenario":
            guard rest.count == 1, CloudNames.isValidPathComponent(rest[0]) else { throw error(line, "'scenario' takes one name without spaces") }
            scenario.name = rest[0]
        case "about":
            scenario.about.append(rest.joined(separator: " "))
        case "seed":
            guard rest.count == 1, let seed = UInt64(rest[0]) else { throw error(line, "'seed' takes a whole number") }
            scenario.seed = seed
        case "model":
            guard rest.count == 1 else { throw error(line, "'model' takes 'notes' or a model file") }
            scenario.modelFile = rest[0] == "notes" ? nil : rest[0]
        case "content":
            guard rest.count == 1, CloudNames.isValidContentName(rest[0]) else { throw error(line, "'content' takes a name of letters, digits, '_' and '-'") }
            scenario.contentName = rest[0]
        case "devices":
            guard !rest.isEmpty else { throw error(line, "'devices' takes the devices' names") }
            for name in rest { try declare(name, line: line) }
        case "peers":
            guard rest.count == 1, let count = Int(rest[0]), (1...64).contains(count) else { throw error(line, "'peers' takes a number from 1 to 64") }
            guard scenario.devices.isEmpty else { throw error(line, "'peers' replaces 'devices': use one or the other") }
            scenario.genericPeers = count
            for index in 1...count { try declare("peer\(index)", line: line) }
        case "device":
            try describeDevice(rest, line: line)
        case "baseline":
            scenario.baselinePolicy = try baselinePolicy(rest, line: line)
        case "machines":
            guard rest.count == 1, let count = Int(rest[0]), (1...64).contains(count) else { throw error(line, "'machines' takes a number from 1 to 64") }
            scenario.machines = count
        case "bound":
            guard rest.count == 1, let bound = Int(rest[0]), bound > 0 else { throw error(line, "'bound' takes a positive number of log files") }
            scenario.logBound = bound
        default:
            return false
        }
        return true
    }

    mutating func declare(_ name: String, line: Int) throws(ScenarioError) {
        guard name.range(of: "^[a-z][a-z0-9_-]{0,31}$", options: .regularExpression) != nil,
              !["all", "wait", "settle", "expect", "faults", "quota", "repeat", "random", "end", "baseline", "auto-sync"].contains(name) else {
            throw error(line, "a device name is a lower-case word of letters, digits, '-' and '_' (and not a step's name): '\(name)'")
        }
        guard !scenario.devices.contains(where: { $0.name == name }) else { throw error(line, "device '\(name)' is declared twice") }
        scenario.devices.append(DeviceDeclaration(name: name, line: line))
    }

    /// `device NAME|all [account TOKEN | signed-out] [skew DURATION] [direct]`
    mutating func describeDevice(_ words: [String], line: Int) throws(ScenarioError) {
        guard let name = words.first else { throw error(line, "'device' takes a device's name (or all) and its settings") }
        if name == "all" {
            guard !scenario.devices.isEmpty else { throw error(line, "'device all' comes after 'devices' or 'peers'") }
            for device in scenario.devices.map(\.name) { try describeDevice([device] + words.dropFirst(), line: line) }
            return
        }
        if !scenario.devices.contains(where: { $0.name == name }) {
            guard scenario.genericPeers == nil else { throw error(line, "no device '\(name)': the peers are peer1…peer\(scenario.genericPeers!) (or all)") }
            try declare(name, line: line)
        }
        var settings = Array(words.dropFirst())
        var declaration = scenario.devices.first { $0.name == name } ?? DeviceDeclaration(name: name, line: line)
        while !settings.isEmpty {
            let word = settings.removeFirst()
            switch word {
            case "account":
                guard let token = settings.first, CloudNames.isValidPathComponent(token) else { throw error(line, "'account' takes an account token") }
                declaration.account = settings.removeFirst()
                _ = token
            case "signed-out":
                declaration.account = nil
            case "skew":
                guard let text = settings.first, let skew = SimulatedDuration.seconds(text) else { throw error(line, "'skew' takes a duration such as -2h or 90s") }
                settings.removeFirst()
                declaration.skew = skew
            case "direct":
                declaration.direct = true
            default:
                throw error(line, "unknown device setting '\(word)' (known: account TOKEN, signed-out, skew DURATION, direct)")
            }
        }
        if let at = scenario.devices.firstIndex(where: { $0.name == name }) { scenario.devices[at] = declaration }
    }

    // MARK: Steps

    mutating func step(_ words: [String], line: Int, inRandom: Bool) throws(ScenarioError) -> StepAction {
        let keyword = words[0], rest = Array(words.dropFirst())
        switch keyword {
        case "wait":
            guard rest.count == 1, let range = SimulatedDuration.range(rest[0]), range.lowerBound >= 0 else {
                throw error(line, "'wait' takes a duration such as 30s, 5m, 2h or 3d, or a range such as 10s..5m")
            }
            return .wait(range)
        case "settle":
            guard rest.isEmpty else { throw error(line, "'settle' takes nothing") }
            return .settle
        case "faults":
            var target: String?
            var pairs = rest
            if let first = pairs.first, !first.contains("="), scenario.devices.contains(where: { $0.name == first }) {
                target = first
                pairs.removeFirst()
            }
            var parsed: [(key: String, value: String?)] = []
            var check = FaultPlan()
            for pair in pairs {
                let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
                let entry = (key: parts[0], value: parts.count == 2 ? parts[1] : nil)
                if let problem = check.set(entry.key, entry.value) { throw error(line, problem) }
                parsed.append(entry)
            }
            guard !parsed.isEmpty else { throw error(line, "'faults' takes key=value pairs, e.g. faults delay=1s..30s drop=0.1 (or faults none)") }
            return .faults(device: target, parsed)
        case "quota":
            guard rest.count == 1 else { throw error(line, "'quota' takes a size such as 2MB, or off") }
            if rest[0] == "off" { return .quota(nil) }
            guard let bytes = SimulatedDuration.bytes(rest[0]) else { throw error(line, "'quota' takes a size such as 512KB or 2MB, or off") }
            return .quota(bytes)
        case "auto-sync":
            guard rest.count == 1, rest[0] == "on" || rest[0] == "off" else { throw error(line, "'auto-sync' takes on or off") }
            return .autoSync(rest[0] == "on")
        case "repeat", "random":
            guard !inRandom else { throw error(line, "blocks cannot be nested inside a 'random' block") }
            guard let first = rest.first, let count = Int(first), count >= 0 else { throw error(line, "'\(keyword)' takes a count: \(keyword) 10") }
            if keyword == "repeat" {
                guard rest.count == 1 else { throw error(line, "'repeat' takes only a count") }
                return .repeated(times: count, body: try readSteps(until: ("repeat", line)))
            }
            var keys = 100
            for option in rest.dropFirst() {
                guard option.hasPrefix("keys="), let value = Int(option.dropFirst(5)), value > 0 else { throw error(line, "'random' takes a count and keys=N") }
                keys = value
            }
            return .random(RandomBlock(count: count, keys: keys, choices: try readChoices(openedAt: line)))
        case "expect":
            if let global = try globalExpectation(rest, line: line) { return global }
            throw error(line, "'expect' alone takes converged, conflicts-recorded or bounded N; a device's expectation starts with its name")
        default:
            let known = scenario.devices.map(\.name)
            guard keyword == "all" || (inRandom && keyword == "?") || known.contains(keyword) else {
                throw error(line, "unknown step or device '\(keyword)' (devices: \(known.joined(separator: ", ")); steps: wait, settle, faults, quota, auto-sync, expect, repeat, random)")
            }
            guard let verb = rest.first else { throw error(line, "'\(keyword)' needs a step, e.g. \(keyword) launch") }
            return .device(keyword, try deviceVerb(verb, Array(rest.dropFirst()), line: line))
        }
    }

    /// The weighted lines of a `random` block up to its `end`.
    mutating func readChoices(openedAt opening: Int) throws(ScenarioError) -> [(weight: Int, step: ScenarioStep)] {
        var choices: [(weight: Int, step: ScenarioStep)] = []
        while let (number, raw, words) = try nextLine() {
            let first = words[0]
            if first == "end" {
                guard !choices.isEmpty else { throw error(number, "a 'random' block needs at least one weighted line") }
                return choices
            }
            guard let weight = Int(first), weight > 0, words.count > 1 else {
                throw error(number, "a line of a 'random' block starts with a positive weight: 10 ? edit Note")
            }
            let action = try step(Array(words.dropFirst()), line: number, inRandom: true)
            choices.append((weight, ScenarioStep(line: number, text: raw.trimmingCharacters(in: .whitespaces), action: action)))
        }
        throw error(opening, "'random' block is never closed with 'end'")
    }

    func globalExpectation(_ words: [String], line: Int) throws(ScenarioError) -> StepAction? {
        switch words.first {
        case "converged"?:
            guard words.count == 1 else { throw error(line, "'expect converged' takes nothing more") }
            return .expectConverged
        case "conflicts-recorded"?:
            guard words.count == 1 else { throw error(line, "'expect conflicts-recorded' takes nothing more") }
            return .expectConflictsRecorded
        case "bounded"?:
            guard words.count == 2, let bound = Int(words[1]), bound > 0 else { throw error(line, "'expect bounded' takes a number of log files") }
            return .expectBounded(bound)
        default:
            return nil
        }
    }

    func baselinePolicy(_ words: [String], line: Int) throws(ScenarioError) -> BaselinePolicy {
        var policy = BaselinePolicy.apple
        for pair in words {
            let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2 else { throw error(line, "'baseline' takes threshold=N bytes=SIZE fraction=F grace=DURATION") }
            switch parts[0] {
            case "threshold": guard let n = Int64(parts[1]), n > 0 else { throw error(line, "threshold takes a positive number of transactions") }; policy.transactionThreshold = n
            case "bytes": guard let n = SimulatedDuration.bytes(parts[1]) else { throw error(line, "bytes takes a size such as 1MB") }; policy.minimumLogBytes = n
            case "fraction": guard let f = Double(parts[1]), f > 0 else { throw error(line, "fraction takes a positive number such as 0.5") }; policy.logBytesFraction = f
            case "grace": guard let g = SimulatedDuration.seconds(parts[1]), g >= 0 else { throw error(line, "grace takes a duration such as 7d") }; policy.gracePeriod = g
            default: throw error(line, "unknown baseline setting '\(parts[0])' (known: threshold, bytes, fraction, grace)")
            }
        }
        return policy
    }

    // MARK: Device steps

    func deviceVerb(_ verb: String, _ args: [String], line: Int) throws(ScenarioError) -> DeviceVerb {
        func count(_ n: ClosedRange<Int>, _ usage: String) throws(ScenarioError) {
            guard n.contains(args.count) else { throw error(line, "usage: DEVICE \(usage)") }
        }
        switch verb {
        case "launch":
            try count(0...1, "launch [rebuild]")
            guard args.isEmpty || args[0] == "rebuild" else { throw error(line, "usage: DEVICE launch [rebuild]") }
            return .launch(rebuild: !args.isEmpty)
        case "quit": try count(0...0, "quit"); return .quit
        case "model": try count(1...1, "model notes|FILE"); return .useModel(args[0])
        case "save": try count(0...0, "save"); return .save
        case "rollback": try count(0...0, "rollback"); return .rollback
        case "sync": try count(0...0, "sync"); return .sync
        case "offline": try count(0...0, "offline"); return .offline
        case "online": try count(0...0, "online"); return .online
        case "sign-out": try count(0...0, "sign-out"); return .signOut
        case "remove-content": try count(0...0, "remove-content"); return .removeContent
        case "sign-in":
            try count(1...1, "sign-in TOKEN")
            guard CloudNames.isValidPathComponent(args[0]) else { throw error(line, "'\(args[0])' is not a valid account token") }
            return .signIn(args[0])
        case "insert", "update":
            guard args.count >= 2 else { throw error(line, "usage: DEVICE \(verb) ENTITY KEY name=value…") }
            let values = try assignments(Array(args.dropFirst(2)), line: line)
            return verb == "insert" ? .insert(entity: args[0], key: args[1], values: values) : .update(entity: args[0], key: args[1], values: values)
        case "delete":
            try count(2...2, "delete ENTITY KEY")
            return .delete(entity: args[0], key: args[1])
        case "relate", "unrelate":
            try count(5...5, "\(verb) ENTITY KEY RELATIONSHIP TARGET-ENTITY TARGET-KEY")
            return verb == "relate"
                ? .relate(entity: args[0], key: args[1], relationship: args[2], targetEntity: args[3], targetKey: args[4])
                : .unrelate(entity: args[0], key: args[1], relationship: args[2], targetEntity: args[3], targetKey: args[4])
        case "edit":
            try count(1...1, "edit ENTITY")
            return .edit(entity: args[0])
        case "mutate":
            try count(0...1, "mutate [pooled]")
            guard args.first.map({ $0 == "pooled" }) ?? true else { throw error(line, "usage: DEVICE mutate [pooled]") }
            return .mutate(pooled: !args.isEmpty)
        case "policy":
            try count(1...1, "policy \(ScenarioParser.policies.joined(separator: "|"))")
            guard ScenarioParser.policies.contains(args[0]) else { throw error(line, "unknown merge policy '\(args[0])' (known: \(ScenarioParser.policies.joined(separator: ", ")))") }
            return .policy(args[0])
        case "on-will-change":
            try count(1...1, "on-will-change save|discard|nothing")
            guard ["save", "discard", "nothing"].contains(args[0]) else { throw error(line, "usage: DEVICE on-will-change save|discard|nothing") }
            return .onWillChange(args[0])
        case "wait-for":
            return try waitFor(args, line: line)
        case "roll-baseline":
            try count(0...1, "roll-baseline [force]")
            guard args.isEmpty || args[0] == "force" else { throw error(line, "usage: DEVICE roll-baseline [force]") }
            return .rollBaseline(force: !args.isEmpty)
        case "corrupt-log":
            try count(0...1, "corrupt-log [N]")
            guard let number = args.first.map({ Int64($0) }) else { return .corruptLog(nil) }
            guard let number, number > 0 else { throw error(line, "corrupt-log takes a transaction number") }
            return .corruptLog(number)
        case "destroy-baseline":
            try count(0...0, "destroy-baseline")
            return .destroyBaseline
        case "encryption":
            return try encryptionVerb(args, line: line)
        case "expect":
            return try deviceExpectation(args, line: line)
        default:
            throw error(line, "unknown device step '\(verb)' (known: launch, quit, insert, update, delete, relate, unrelate, edit, mutate, save, rollback, sync, policy, on-will-change, sign-in, sign-out, offline, online, remove-content, roll-baseline, corrupt-log, destroy-baseline, encryption, wait-for, expect)")
        }
    }

    /// `wait-for EVENT [within DURATION]`, a day at most by default.
    func waitFor(_ args: [String], line: Int) throws(ScenarioError) -> DeviceVerb {
        guard args.count == 1 || (args.count == 3 && args[1] == "within") else { throw error(line, "usage: DEVICE wait-for EVENT [within DURATION]") }
        try checkEvent(args[0], line: line)
        guard let within = args.count == 3 ? SimulatedDuration.seconds(args[2]) : 86_400, within > 0 else {
            throw error(line, "'within' takes a positive duration such as 30m")
        }
        return .waitFor(event: args[0], within: within)
    }

    /// `encryption enable PASSPHRASE | unlock PASSPHRASE | change OLD NEW`.
    func encryptionVerb(_ args: [String], line: Int) throws(ScenarioError) -> DeviceVerb {
        let usage = "encryption enable PASSPHRASE | unlock PASSPHRASE | change OLD NEW"
        guard let action = args.first else { throw error(line, "usage: DEVICE \(usage)") }
        let words = Array(args.dropFirst())
        guard !words.contains(where: \.isEmpty) else { throw error(line, "a passphrase cannot be empty") }
        switch (action, words.count) {
        case ("enable", 1): return .encryptionEnable(passphrase: words[0])
        case ("unlock", 1): return .encryptionUnlock(passphrase: words[0])
        case ("change", 2): return .encryptionChange(from: words[0], to: words[1])
        default: throw error(line, "usage: DEVICE \(usage)")
        }
    }

    func deviceExpectation(_ args: [String], line: Int) throws(ScenarioError) -> DeviceVerb {
        guard let what = args.first else { throw error(line, "usage: DEVICE expect store|events|count|save-fails|uploads-waiting|conflicts|encryption|ENTITY KEY …") }
        switch what {
        case "store":
            guard args.count == 2, let kind = StoreKind(rawValue: args[1]) else { throw error(line, "usage: DEVICE expect store account|fallback|local") }
            return .expectStore(kind)
        case "events":
            let events = args.dropFirst().flatMap { $0.split(separator: ",").map(String.init) }
            for event in events { try checkEvent(event, line: line) }
            return .expectEvents(events)
        case "count":
            guard args.count == 3, let count = Int(args[2]), count >= 0 else { throw error(line, "usage: DEVICE expect count ENTITY N") }
            return .expectCount(entity: args[1], count: count)
        case "encryption":
            guard args.count == 2, ["plain", "sealed", "locked"].contains(args[1]) else { throw error(line, "usage: DEVICE expect encryption plain|sealed|locked") }
            return .expectEncryption(args[1])
        case "save-fails":
            guard args.count == 1 else { throw error(line, "usage: DEVICE expect save-fails") }
            return .expectSaveFails
        case "uploads-waiting":
            guard args.count == 2, let count = Int(args[1]), count >= 0 else { throw error(line, "usage: DEVICE expect uploads-waiting N") }
            return .expectUploadsWaiting(count)
        case "conflicts":
            guard args.count == 2, let count = Int(args[1]), count >= 0 else { throw error(line, "usage: DEVICE expect conflicts N (at least N recorded)") }
            return .expectConflicts(atLeast: count)
        default:
            guard args.count >= 3 else { throw error(line, "usage: DEVICE expect ENTITY KEY deleted | name=value…") }
            if args.count == 3, args[2] == "deleted" { return .expectDeleted(entity: args[0], key: args[1]) }
            return .expectValues(entity: args[0], key: args[1], values: try assignments(Array(args.dropFirst(2)), line: line))
        }
    }

    func checkEvent(_ event: String, line: Int) throws(ScenarioError) {
        let parts = event.split(separator: ":").map(String.init)
        let valid: Bool
        switch parts.first {
        case "will-change": valid = parts.count == 2 && ScenarioParser.transitions.contains(parts[1])
        case "did-change": valid = parts.count == 3 && (ScenarioParser.transitions + ["added"]).contains(parts[1]) && StoreKind(rawValue: parts[2]) != nil
        case "store-migrated": valid = parts.count == 1
        default: valid = false
        }
        guard valid else {
            throw error(line, "unknown event '\(event)': write will-change:TRANSITION, did-change:TRANSITION:STORE or store-migrated, with a transition of \(ScenarioParser.transitions.joined(separator: ", ")) (or 'added' for a store added) and a store of account, fallback, local")
        }
    }

    func assignments(_ words: [String], line: Int) throws(ScenarioError) -> [PropertyAssignment] {
        var result: [PropertyAssignment] = []
        for word in words {
            do { result.append(try PropertyAssignment(parsing: word)) } catch { throw self.error(line, error.description) }
        }
        return result
    }

    // MARK: Words

    /// Splits a line into words: spaces separate, double quotes group (`title="a b"` is one
    /// word `title=a b`; `\"` and `\\` escape inside quotes), `#` after a space starts a comment.
    func tokens(_ line: String, line number: Int) throws(ScenarioError) -> [String] {
        var words: [String] = []
        var current = ""
        var inWord = false, quoted = false, escaped = false
        for character in line {
            if quoted {
                if escaped { current.append(character); escaped = false }
                else if character == "\\" { escaped = true }
                else if character == "\"" { quoted = false }
                else { current.append(character) }
                continue
            }
            if character == " " || character == "\t" || character == "\r" {
                if inWord { words.append(current); current = ""; inWord = false }
            } else if character == "#" && !inWord {
                break
            } else if character == "\"" {
                quoted = true
                inWord = true
            } else {
                current.append(character)
                inWord = true
            }
        }
        if quoted { throw error(number, "a quote is not closed") }
        if inWord { words.append(current) }
        return words
    }
}
