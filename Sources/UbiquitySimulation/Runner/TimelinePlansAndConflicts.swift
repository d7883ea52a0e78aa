import Ubiquity

/// A conflict a device recorded in its conflict history, and when.
public struct ConflictMark: Sendable, Equatable {
    /// Simulated seconds since the start.
    public var time: Double
    public var device: String
    public var conflict: RecordedConflict

    /// `{time, device, object, property, kind, winner, loser}`.
    public var jsonValue: JSONValue {
        guard case var .object(fields) = conflict.jsonValue else { return conflict.jsonValue }
        fields["time"] = .double(time)
        fields["device"] = .string(device)
        return .object(fields)
    }
}

/// What may go wrong on a lane from a moment on: the faults a device's daemon (or a machine's
/// engine) is set to inject, or a device's clock skew. A plan, not a fault that happened.
public struct FaultPlanMark: Sendable, Equatable {
    public enum Setting: Sendable, Equatable {
        case faults(FaultPlan)
        /// Seconds the device's clock is off by (positive: ahead).
        case clockSkew(Double)
    }

    /// Simulated seconds since the start.
    public var time: Double
    /// A device's name, or a machine's lane (`machine 1`).
    public var lane: String
    public var setting: Setting

    /// `faults: delay=1s..30s drop=0.1`, `clock off by +5m`: as the timeline shows it.
    public var text: String {
        switch setting {
        case let .faults(plan): return "faults: \(plan.summary)"
        case let .clockSkew(skew): return "clock off by \(skew > 0 ? "+" : "")\(SimulatedDuration.signedText(skew))"
        }
    }

    /// `{time, lane, kind: "faults", faults: {…}}` or `{time, lane, kind: "clock-skew", seconds}`.
    public var jsonValue: JSONValue {
        var fields: [String: JSONValue] = ["time": .double(time), "lane": .string(lane)]
        switch setting {
        case let .faults(plan):
            fields["kind"] = .string("faults")
            fields["faults"] = plan.jsonValue
        case let .clockSkew(skew):
            fields["kind"] = .string("clock-skew")
            fields["seconds"] = .double(skew)
        }
        return .object(fields)
    }
}

extension FaultPlan {
    /// What differs from no faults, keyed as in a `faults` line, typed: rates as numbers,
    /// durations as `{from, to}` in seconds, `reorder` as `true`, `offline` as `{rate, for}`.
    public var jsonValue: JSONValue {
        func range(_ r: ClosedRange<Double>) -> JSONValue { .object(["from": .double(r.lowerBound), "to": .double(r.upperBound)]) }
        var fields: [String: JSONValue] = [:]
        if delay != 0...0 { fields["delay"] = range(delay) }
        if retryAfter != FaultPlan().retryAfter { fields["retry"] = range(retryAfter) }
        if dropRate > 0 { fields["drop"] = .double(dropRate) }
        if truncateRate > 0 { fields["truncate"] = .double(truncateRate) }
        if duplicateRate > 0 { fields["duplicate"] = .double(duplicateRate) }
        if reorder { fields["reorder"] = .bool(true) }
        if offlineRate > 0 { fields["offline"] = .object(["rate": .double(offlineRate), "for": range(offlineFor)]) }
        if skew != 0...0 { fields["skew"] = range(skew) }
        if loseRate > 0 { fields["lose"] = .double(loseRate) }
        return .object(fields)
    }
}

extension Timeline {
    mutating func markConflict(_ time: Double, _ device: String, _ conflict: RecordedConflict) {
        conflicts.append(ConflictMark(time: time, device: device, conflict: conflict))
        mark(time, device, .conflict, "conflict recorded: \(conflict)")
    }

    mutating func markFaultPlan(_ time: Double, _ lane: String, _ setting: FaultPlanMark.Setting) {
        let plan = FaultPlanMark(time: time, lane: lane, setting: setting)
        faultPlans.append(plan)
        mark(time, lane, .faultPlan, plan.text)
    }
}
