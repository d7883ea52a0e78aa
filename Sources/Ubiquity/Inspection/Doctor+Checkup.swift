import UbiquityBase
import UbiquitySync

/// What one run of the doctor found and what it repaired (`ubiq doctor [--fix]`).
public struct DoctorCheckup: Sendable {
    public let findings: [DoctorFinding]
    /// One line per repair done, in order.
    public let repairs: [String]
    /// Whether `--fix` ran: then the fixable findings were repaired.
    public let fixed: Bool

    /// The findings no repair of this run took care of: none means the device is healthy.
    public var unresolved: [DoctorFinding] { fixed ? findings.filter { !$0.fixable } : findings }

    public var jsonValue: JSONValue { jsonValue(wordingRemedies: \.description) }

    /// `jsonValue`, with the repairs' remedies worded by `word`.
    public func jsonValue(wordingRemedies word: (Remedy) -> String) -> JSONValue {
        .object(["findings": .array(findings.map { $0.jsonValue(wordingRemedies: word) }), "repairs": .array(repairs.map(JSONValue.string))])
    }
}

extension Doctor {
    /// Examines the device of `configuration` and its container and, with `fix`, repairs what
    /// is safe: stale temporary files, this peer's receipt, a fallback left behind. Without
    /// `fix` nothing is written, so it works while another process owns the device.
    public static func checkUp(configuration: PeerConfiguration, fix: Bool) throws -> DoctorCheckup {
        func check(_ peer: UbiquityPeer) throws -> ([DoctorFinding], [String]) {
            let findings = try Doctor.examine(peer)
            return (findings, fix ? Doctor.fix(findings, peer: peer) : [])
        }
        let (findings, safeRepairs) = try fix ? UbiquityPeer.withPeer(configuration: configuration, check)
                                              : UbiquityPeer.withReadablePeer(configuration: configuration, check)
        var repairs = safeRepairs
        if fix, findings.contains(where: { $0.kind == .staleFallback }) {
            repairs.append(try finishStaleFallback(configuration: configuration))
        }
        return DoctorCheckup(findings: findings, repairs: repairs, fixed: fix)
    }

    /// The repair of a `.staleFallback` finding: adds the store as an app would, so the initial
    /// import finishes and what was saved in the fallback moves into the account's store.
    /// Returns the repair's line. The device must not be open in this process meanwhile.
    public static func finishStaleFallback(configuration: PeerConfiguration) throws -> String {
        let coordinator = try UbiquitousStoreCoordinator(configuration: configuration, liveImport: .off)
        defer { coordinator.close() }
        try coordinator.addStore()
        try coordinator.waitForBackgroundImport()
        return "finished the initial import and migrated the fallback"
    }
}
