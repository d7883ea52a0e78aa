import Ubiquity

extension ScenarioResult {
    /// `{scenario, about: [text], seed, mode, transport, passed, steps, simulatedSeconds, saves,
    /// conflicts, peakLogFiles, logBound, transfers, devices: [{name, peerID, machine, saves,
    /// imports, conflicts, transitions, finalState, transfers}], machines: [{name, devices,
    /// connected, transfers}], expectations: [ExpectationOutcome.jsonValue], conflictsRecorded:
    /// [ConflictMark.jsonValue], faultPlans: [FaultPlanMark.jsonValue], violations: [text],
    /// replay, warnings: [text], syncthing: null or {hosts, separation, realSeconds, waits,
    /// waitsAtLimit}}` (Docs/Scenarios.md, "The JSON report")
    public var jsonValue: JSONValue {
        .object([
            "scenario": .string(scenario), "about": .array(about.map(JSONValue.string)), "seed": .string(String(seed)), "mode": .string(mode), "transport": .string(transport), "passed": .bool(passed),
            "steps": .int(Int64(steps)), "simulatedSeconds": .double(simulatedSeconds), "saves": .int(Int64(saves)),
            "conflicts": .int(Int64(conflicts)), "peakLogFiles": .int(Int64(peakLogFiles)), "logBound": .int(Int64(logBound)),
            "transfers": transfers.jsonValue,
            "devices": .array(devices.map { device in
                .object([
                    "name": .string(device.name), "peerID": .string(device.peerID), "machine": device.machine.map { .int(Int64($0)) } ?? .null,
                    "saves": .int(Int64(device.saves)),
                    "imports": .int(Int64(device.imports)), "conflicts": .int(Int64(device.conflicts)),
                    "transitions": .array(device.transitions.map(JSONValue.string)), "finalState": .string(device.finalState),
                    "transfers": device.transfers.jsonValue,
                ])
            }),
            "machines": .array(machines.map { machine in
                .object([
                    "name": .string(machine.name), "devices": .array(machine.devices.map(JSONValue.string)),
                    "connected": .bool(machine.connected), "transfers": machine.transfers.jsonValue,
                ])
            }),
            "expectations": .array(expectations.map(\.jsonValue)),
            "conflictsRecorded": .array(timeline.conflicts.map(\.jsonValue)),
            "faultPlans": .array(timeline.faultPlans.map(\.jsonValue)),
            "violations": .array(violations.map { .string($0.description) }),
            "replay": .string(replay),
            "warnings": .array(warnings.map(JSONValue.string)),
            "syncthing": syncthing.map { summary in
                .object([
                    "hosts": .int(Int64(summary.hosts)), "separation": .string(summary.separation), "realSeconds": .double(summary.realSeconds),
                    "waits": .int(Int64(summary.waits)), "waitsAtLimit": .int(Int64(summary.waitsAtLimit)),
                ])
            } ?? .null,
        ])
    }
}

extension TransferStatistics {
    public var jsonValue: JSONValue {
        .object([
            "uploads": .int(Int64(uploads)), "downloads": .int(Int64(downloads)), "deletions": .int(Int64(deletions)),
            "bytesUp": .int(bytesUp), "bytesDown": .int(bytesDown), "conflictCopies": .int(Int64(conflictCopies)), "drops": .int(Int64(drops)),
            "truncations": .int(Int64(truncations)), "duplicates": .int(Int64(duplicates)),
            "quotaRefusals": .int(Int64(quotaRefusals)), "offlineWindows": .int(Int64(offlineWindows)), "lost": .int(Int64(lost)),
        ])
    }
}
