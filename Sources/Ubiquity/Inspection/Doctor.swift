import Foundation
import UbiquityBase
import UbiquityCore
import UbiquitySync

/// One problem `ubiq doctor` found, with the concrete repair.
public struct DoctorFinding: Sendable {
    public enum Kind: String, Sendable {
        case missingPredecessor, unreadableFile, foreignFile, blockedGarbageCollection, staleReceipt
        case staleFallback, staleTemporaryFile, modelMix, clockSkew
        /// A file-sync tool's conflict copy (never imported).
        case conflictCopy
        /// Two logs for one transaction of a peer: two machines run as that peer.
        case duplicatePeer
        /// A log or receipt delivered a second time under a numbered name (`name 2.ext`).
        case duplicateCopy
        /// The content is encrypted and this device holds no key.
        case encryptedWithoutKey
        /// The content's key record was edited in the cloud (`KeyRecordAlteration`).
        case alteredKeyRecord
        /// A log (or a value from a baseline) waits for an external data file not arrived or damaged.
        case missingExternalData
    }

    public let kind: Kind
    public let message: String
    /// What to do, its remedies typed (the tool words them as its commands).
    public let repair: Advice
    /// Whether `doctor --fix` repairs it (only safe repairs: nothing saved is ever deleted).
    public let fixable: Bool

    public var jsonValue: JSONValue { jsonValue(wordingRemedies: \.description) }

    /// `jsonValue`, with the repair's remedies worded by `word`.
    public func jsonValue(wordingRemedies word: (Remedy) -> String) -> JSONValue {
        .object(["kind": .string(kind.rawValue), "message": .string(message), "repair": .string(repair.worded(word)), "fixable": .bool(fixable)])
    }
}

/// Checks a container and a device, and repairs what is safe to repair.
public enum Doctor {
    /// Clock disagreements above this many seconds between peers are reported.
    public static let skewTolerance: Double = 120
    /// Temporary `.nosync` files older than this are leftovers of an interrupted write.
    public static let staleTemporaryAge: Double = 3_600

    /// What is wrong with `peer`'s store and container, judged at `now` (default: the peer's
    /// clock). Every run reads every log, receipt and baseline of the content — those no
    /// import has seen yet too — and trusts neither file times nor earlier imports.
    public static func examine(_ peer: UbiquityPeer, now: Date? = nil) throws -> [DoctorFinding] {
        let now = now ?? peer.configuration.clock.now
        var findings = fallbackFindings(peer)
        guard let location = peer.location else { return findings }
        if let locked = sealingFindings(location) { return findings + locked }
        if let alteration = location.sealing.alteration {
            findings.append(DoctorFinding(kind: .alteredKeyRecord, message: "\(alteration.description) (\(location.encryptionRecordPath)); this device goes on with the key it holds",
                repair: alteration.isRestorable ? "to put its key ID back, \(.sync) (or \(.repairKeyRecord)): the record's check proves the rest as written"
                    : "\(.repairKeyRecord) with the passphrase", fixable: false))
        }
        let scan = ContainerScan(location: location)
        if let versions = try ModelVersionReport.make(for: peer) { findings += modelVersionFindings(versions) }
        findings += entryFindings(scan, peer: peer, location: location, now: now)

        // Every log, read and verified as an import would (decode, checksum, model, author,
        // number, stamp), and every receipt. Logs of another content epoch are leftovers of
        // removed content (their authors delete them once they notice the removal): never
        // applied, they count for nothing below.
        let epoch = try peer.store.contentEpoch()
        let verification = verifyLogs(scan, location: location, store: peer.store, now: now.timeIntervalSince1970)
        let decoded = verification.decoded
        findings += verification.problems.map { unreadableLogFinding($0.path, reason: $0.reason, author: $0.peerID, peer: peer) }
        findings += receiptFindings(scan, location: location)
        var damaged = Set(verification.problems.map(\.path))
        findings += try quarantineFindings(peer, location: location, damaged: &damaged)
        findings += baselineFindings(peer, location: location)
        let current = scan.logs.filter { (decoded[$0.peerID + "/" + $0.name].map { $0.contentEpoch == epoch }) ?? true }

        findings += sharedFolderFindings(location, now: now)
        findings += duplicateLogFindings(current)
        // Damaged logs aside: reported above.
        let readable = current.filter { !damaged.contains(location.relativeLogPath($0.peerID, $0.name)) }
        findings += missingPredecessorFindings(readable, knowledge: peer.store.knowledge)
        findings += try externalDataFindings(peer)
        findings += garbageFindings(peer, location: location, now: now)
        findings += clockSkewFindings(readable.compactMap { decoded[$0.peerID + "/" + $0.name] })
        return findings
    }

    /// Repairs the fixable findings: deletes stale temporary files of this peer and rewrites its
    /// receipt. A stale fallback is finished by the caller through a coordinator.
    public static func fix(_ findings: [DoctorFinding], peer: UbiquityPeer) -> [String] {
        guard let location = peer.location else { return [] }
        var done: [String] = []
        let own = ContainerEntry.list(location.logDirectory(of: peer.peerID), as: .logs, of: location)
        for file in own where file.kind == .temporary && findings.contains(where: { $0.kind == .staleTemporaryFile && $0.message.contains(file.name) }) {
            if unlink(file.path) == 0 { done.append("deleted \(file.name)") }
        }
        if (try? Exporter(store: peer.store, location: location, logger: .silent).writeReceipt(baselineView: peer.baselines.view)) != nil { done.append("rewrote this peer's receipt") }
        return done
    }

    /// Peers on other model versions and what waits for an upgrade: nothing is broken, but their
    /// saves and this peer's do not meet until they are on one version.
    static func modelVersionFindings(_ report: ModelVersionReport) -> [DoctorFinding] {
        var findings: [DoctorFinding] = []
        for version in report.versions where !version.isThisPeers {
            let waiting = version.waiting.values.reduce(0, +)
            guard !version.peersOnIt.isEmpty || waiting > 0 else { continue }
            let peers = version.peersOnIt.isEmpty ? "no peer is on it now" : "\(version.peersOnIt.joined(separator: ", ")) \(version.peersOnIt.count == 1 ? "is" : "are") on it"
            let advice: Advice = version.isPrevious
                ? "upgrade those peers (\(.migrateStore)): their saves reach this version when they do"
                : "every peer of a content should run one model: migrate the older side (to see whether the change can be inferred, \(.compareModels))"
            findings.append(DoctorFinding(kind: .modelMix,
                message: "model version \(version.modelHash)\(version.isPrevious ? " (this store's previous one)" : ""): \(peers); \(waiting) transaction(s) there wait for an upgrade",
                repair: advice, fixable: false))
        }
        if report.migrationBaselineOwed {
            findings.append(DoctorFinding(kind: .modelMix, message: "this store was migrated and its state is not in a baseline of its version yet: its new saves wait",
                repair: "when the cloud is writable, \(.sync); the baseline is rolled then", fixable: false))
        }
        if report.previousVersionOutbox > 0 {
            findings.append(DoctorFinding(kind: .modelMix, message: "\(report.previousVersionOutbox) save(s) made before the migration wait to be written into the old version's folder",
                repair: "when the cloud is writable, \(.sync); peers still on the old version get them then", fixable: false))
        }
        return findings
    }
}
