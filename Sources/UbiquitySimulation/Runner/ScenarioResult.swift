import Ubiquity

/// How a scenario run ended: the figures of its report, every invariant or expectation it
/// broke (with the line), and the timeline for `--report`.
public struct ScenarioResult: Sendable {
    public var scenario: String
    /// What the scenario shows, in its author's words (its `about` lines).
    public var about: [String] = []
    /// Each expectation line of the scenario, in the file's order, and how it went.
    public var expectations: [ExpectationOutcome] = []
    public var seed: UInt64
    /// `in-process`, `processes` or `syncthing`.
    public var mode: String
    /// How files travelled: `icloud`, `file-sync` or `syncthing`.
    public var transport = ScenarioTransport.icloud.rawValue
    /// Under the file-sync transport: each machine, its devices and what its engine did.
    public var machines: [MachineSummary] = []
    public var steps = 0
    public var simulatedSeconds = 0.0
    public var violations: [Violation] = []
    public var devices: [DeviceSummary] = []
    public var transfers = TransferStatistics()
    public var peakLogFiles = 0
    public var logBound = 0
    public var conflicts = 0
    public var saves = 0
    public var timeline = Timeline()
    /// The command that replays this run.
    public var replay = ""
    /// What the run did differently from what the scenario asked, said once each.
    public var warnings: [String] = []
    /// Under `--syncthing`: the hosts and the real time they took.
    public var syncthing: SyncthingSummary?

    public var passed: Bool { violations.isEmpty }

    /// The report for people: verdict first, what the scenario is about, then the figures,
    /// each device, each expectation and how it went, and what broke.
    public var text: String {
        let transport = self.transport == ScenarioTransport.fileSync.rawValue ? ", file-sync on \(machines.count) machine\(machines.count == 1 ? "" : "s")" : ""
        var lines = ["Scenario \(scenario) (seed \(seed), \(mode)\(transport), \(devices.count) devices): \(passed ? "PASSED" : "FAILED")"]
        if !about.isEmpty { lines.append("  about: \(about.joined(separator: " "))") }
        lines.append("  steps \(steps), simulated time \(SimulatedDuration.text(simulatedSeconds)), \(saves) saves, \(conflicts) conflicts recorded, log files at most \(peakLogFiles) (bound \(logBound))")
        if let syncthing {
            lines.append("  hosts: \(syncthing.line)")
        } else {
            lines.append("  transfers: \(transfers.line)")
        }
        for machine in machines {
            lines.append("  \(machine.name) (\(machine.devices.joined(separator: ", "))\(machine.connected ? "" : ", cut off")): \(machine.transfers.line)")
        }
        for device in devices {
            let place = device.machine.map { " (machine \($0))" } ?? ""
            lines.append("  \(device.name)\(place): \(device.saves) saves, \(device.imports) imports, \(device.conflicts) conflicts; \(device.finalState)")
            lines.append("    events: \(device.transitions.isEmpty ? "none" : device.transitions.joined(separator: ", "))")
            if syncthing == nil && device.machine == nil { lines.append("    transfers: \(device.transfers.line)") }
        }
        if !expectations.isEmpty {
            lines.append("Expectations: \(ExpectationOutcome.counts(expectations))")
            lines += expectations.map { "  \($0.sign) line \($0.line): \($0.text): \($0.outcomeText)\($0.failure.map { ": " + $0 } ?? "")" }
        }
        lines += warnings.map { "Warning: \($0)" }
        if !violations.isEmpty {
            lines.append("Violations:")
            lines += violations.map { "  \($0)" }
        }
        lines.append("Replay: \(replay)")
        return lines.joined(separator: "\n")
    }
}

/// An invariant or expectation that did not hold.
public struct Violation: Sendable, CustomStringConvertible {
    public var source: String
    public var line: Int
    public var step: String
    /// Simulated seconds since the start.
    public var time: Double
    public var message: String

    public var description: String {
        let place = line > 0 ? "\(source):\(line)" : source
        return "\(place) at +\(SimulatedDuration.text(time))\(step.isEmpty ? "" : " (\(step))"): \(message)"
    }
}

/// One device at the end of a run.
public struct DeviceSummary: Sendable {
    public var name: String
    public var peerID: String
    public var saves = 0
    public var imports = 0
    public var conflicts = 0
    /// Transitions in the order posted (did-import left out).
    public var transitions: [String] = []
    /// Its daemon's figures, or (file-sync) its machine's.
    public var transfers = TransferStatistics()
    /// `account store of 'alice', knowledge …` or `not running`.
    public var finalState = ""
    /// The machine it ran on (1…), under the file-sync transport.
    public var machine: Int?
}

/// One machine of a file-sync run at its end.
public struct MachineSummary: Sendable {
    /// `machine 1`…, as its lane on the timeline.
    public var name: String
    public var devices: [String]
    /// What its engine did: files published by its scans (up), delivered to it (down), deletions
    /// delivered, conflict copies, and the faults injected.
    public var transfers: TransferStatistics
    /// Whether it was connected at the end (not cut off).
    public var connected: Bool
}

/// How the Syncthing hosts of a run went, in real time.
public struct SyncthingSummary: Sendable {
    public var hosts: Int
    /// `netns` (network namespaces) or `loopback` (instances on loopback ports).
    public var separation: String
    /// Real seconds from the hosts being up to the end of the checks.
    public var realSeconds: Double
    /// `wait` steps, and how many of them ran into their real-time limit before the hosts were quiet.
    public var waits: Int
    public var waitsAtLimit: Int

    public var line: String {
        "\(hosts) Syncthing hosts (\(separation)), \(String(format: "%.1f", realSeconds)) s of real time, \(waits) waits (\(waitsAtLimit) ran into their limit)"
    }
}

/// What happened when, for the report's timeline.
public struct Timeline: Sendable {
    public enum Kind: String, Sendable {
        case save, transition, importChanges = "import", upload, download, deletion, fault, offline, online, violation, note
        /// The faults a device's daemon (or a machine's engine) is set to inject, and a device's
        /// clock skew: a plan, set at the start or by a `faults` step, not a fault that happened.
        case faultPlan = "fault-plan"
        /// Concurrent overwrites a device recorded in its conflict history.
        case conflict
    }

    public struct Mark: Sendable {
        public var time: Double
        /// A device's name, or `cloud`.
        public var lane: String
        public var kind: Kind
        public var text: String
    }

    public var lanes: [String] = []
    public var marks: [Mark] = []
    /// The conflicts devices recorded and the fault plans set, typed (each is a mark too).
    public var conflicts: [ConflictMark] = []
    public var faultPlans: [FaultPlanMark] = []
    /// Per device: the sum of its knowledge vector over time (how much it has seen).
    public var knowledge: [String: [(time: Double, total: Int64)]] = [:]
    /// Per device: which store it worked on from when (`nil`: not running).
    public var stores: [String: [(time: Double, store: String?)]] = [:]
    public var duration = 0.0

    mutating func mark(_ time: Double, _ lane: String, _ kind: Kind, _ text: String) {
        marks.append(Mark(time: time, lane: lane, kind: kind, text: text))
    }

    mutating func sample(_ lane: String, time: Double, knowledge total: Int64?, store: String?) {
        if let total, knowledge[lane]?.last?.total != total { knowledge[lane, default: []].append((time, total)) }
        if stores[lane]?.last.map({ $0.store != store }) ?? true { stores[lane, default: []].append((time, store)) }
    }
}
