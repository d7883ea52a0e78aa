/// What goes wrong in a device's transfers, drawn from the scenario's seed (Docs/Scenarios.md). Every
/// rate is a probability per transfer attempt; durations are simulated seconds.
public struct FaultPlan: Sendable, Equatable {
    /// How long each transfer waits before it is tried.
    public var delay: ClosedRange<Double> = 0...0
    /// A failed attempt (dropped connection) is retried after this long.
    public var retryAfter: ClosedRange<Double> = 5...60
    /// Attempts that fail and are retried later.
    public var dropRate = 0.0
    /// Transfers that first deliver only part of the file; the whole file follows on retry.
    public var truncateRate = 0.0
    /// Transfers delivered a second time later: the same bytes again, or an iCloud-style copy
    /// named `name 2.ext` beside the original.
    public var duplicateRate = 0.0
    /// Due transfers run in random order instead of the order they became due.
    public var reorder = false
    /// Chance, per transfer round, that the device goes offline for `offlineFor`.
    public var offlineRate = 0.0
    public var offlineFor: ClosedRange<Double> = 60...600
    /// Each device's clock is off by a value drawn from this range when the run starts.
    public var skew: ClosedRange<Double> = 0...0
    /// Sabotage, for proving the invariant checks can fail: a download is recorded as
    /// delivered but never written, so the engine never learns of the file.
    public var loseRate = 0.0

    public init() {}

    /// Whether the plan injects nothing at all.
    public var isQuiet: Bool { self == FaultPlan() }

    /// Sets one `key=value` of a scenario's `faults` line; returns an error message on a bad one.
    /// Keys: delay, retry, drop, truncate, duplicate, reorder, offline (rate/duration), skew, lose.
    mutating func set(_ key: String, _ value: String?) -> String? {
        func rate() -> Double? { value.flatMap(Double.init).flatMap { (0...1).contains($0) ? $0 : nil } }
        func range() -> ClosedRange<Double>? { value.flatMap(SimulatedDuration.range) }
        switch key {
        case "delay": guard let r = range(), r.lowerBound >= 0 else { return "delay takes a duration or range such as 1s..30s" }; delay = r
        case "retry": guard let r = range(), r.lowerBound > 0 else { return "retry takes a positive duration or range such as 5s..1m" }; retryAfter = r
        case "drop": guard let r = rate() else { return "drop takes a probability from 0 to 1" }; dropRate = r
        case "truncate": guard let r = rate() else { return "truncate takes a probability from 0 to 1" }; truncateRate = r
        case "duplicate": guard let r = rate() else { return "duplicate takes a probability from 0 to 1" }; duplicateRate = r
        case "lose": guard let r = rate() else { return "lose takes a probability from 0 to 1" }; loseRate = r
        case "reorder":
            guard value == nil || value == "on" || value == "off" else { return "reorder takes no value, or on/off" }
            reorder = value != "off"
        case "skew": guard let r = range() else { return "skew takes a duration or range such as -5m..5m" }; skew = r
        case "offline":
            // offline=RATE/DURATION, e.g. offline=0.01/10m..2h
            let parts = (value ?? "").split(separator: "/", maxSplits: 1).map(String.init)
            guard parts.count == 2, let r = Double(parts[0]), (0...1).contains(r), let d = SimulatedDuration.range(parts[1]), d.lowerBound > 0 else {
                return "offline takes RATE/DURATION such as 0.01/10m..2h"
            }
            offlineRate = r
            offlineFor = d
        case "none":
            self = FaultPlan()
        default:
            return "unknown fault '\(key)' (known: delay, retry, drop, truncate, duplicate, reorder, offline, skew, lose, none)"
        }
        return nil
    }

    /// `delay=1s..30s drop=0.1 …` (only what differs from no faults), for reports.
    public var summary: String {
        var parts: [String] = []
        func range(_ r: ClosedRange<Double>) -> String {
            r.lowerBound == r.upperBound ? SimulatedDuration.signedText(r.lowerBound) : "\(SimulatedDuration.signedText(r.lowerBound))..\(SimulatedDuration.signedText(r.upperBound))"
        }
        if delay != 0...0 { parts.append("delay=\(range(delay))") }
        if dropRate > 0 { parts.append("drop=\(dropRate)") }
        if truncateRate > 0 { parts.append("truncate=\(truncateRate)") }
        if duplicateRate > 0 { parts.append("duplicate=\(duplicateRate)") }
        if reorder { parts.append("reorder") }
        if offlineRate > 0 { parts.append("offline=\(offlineRate)/\(range(offlineFor))") }
        if skew != 0...0 { parts.append("skew=\(range(skew))") }
        if loseRate > 0 { parts.append("lose=\(loseRate)") }
        return parts.isEmpty ? "none" : parts.joined(separator: " ")
    }
}
