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
        var findings: [DoctorFinding] = []
        let fallback = peer.folder.storeFile(kind: .fallback, storeName: peer.configuration.storeName)
        if peer.kind == .account, FileManager.default.fileExists(atPath: fallback) {
            findings.append(DoctorFinding(kind: .staleFallback,
                message: "a fallback store is left from an initial import that did not finish (\(fallback))",
                repair: "\(.openAccountStore): it finishes the import and migrates what was saved in the fallback", fixable: true))
        }
        guard let location = peer.location else { return findings }
        if case .locked = location.sealing.refresh() {
            // Nothing of the content can be read here; nothing unread is reported as damaged.
            if location.sealing.isRecordMissing {
                findings.append(DoctorFinding(kind: .encryptedWithoutKey, message: SyncError.keyRecordMissing(path: location.encryptionRecordPath).description,
                    repair: "put the record back (a backup of the cloud, another machine's copy); saves wait in the outbox meanwhile, and nothing is written in plaintext", fixable: false))
                return findings
            }
            if location.sealing.alteration != nil {
                findings.append(DoctorFinding(kind: .alteredKeyRecord, message: location.sealing.lockedError.description,
                    repair: "a device holding the key puts it back at its next sync; or \(.unlockEncryption) here with the passphrase; saves wait in the outbox meanwhile", fixable: false))
                return findings
            }
            findings.append(DoctorFinding(kind: .encryptedWithoutKey, message: ContentSealing.noKeyMessage,
                repair: "\(.unlockEncryption) with the passphrase; saves wait in the outbox meanwhile", fixable: false))
            return findings
        }
        if let alteration = location.sealing.alteration {
            findings.append(DoctorFinding(kind: .alteredKeyRecord, message: "\(alteration.description) (\(location.encryptionRecordPath)); this device goes on with the key it holds",
                repair: alteration.isRestorable ? "to put its key ID back, \(.sync) (or \(.repairKeyRecord)): the record's check proves the rest as written"
                    : "\(.repairKeyRecord) with the passphrase", fixable: false))
        }
        let knowledge = peer.store.knowledge
        let scan = ContainerScan(location: location)
        if let versions = try ModelVersionReport.make(for: peer) { findings += modelVersionFindings(versions) }

        for stranger in scan.strangers {
            let what = stranger.type == .symbolicLink ? "is a symbolic link, never followed" : "is not a peer's folder"
            findings.append(DoctorFinding(kind: .foreignFile, message: "'\(stranger.name)' in the ubiquity root \(what)",
                repair: "move it out of \(location.ubiquityRoot); it is never imported", fixable: false))
        }
        for folder in scan.peerFolders {
            findings += folderFindings(peer: folder.peerID, location)
            for entry in folder.entries {
                let path = location.relativeLogPath(folder.peerID, entry.name)
                switch entry.kind {
                case .temporary:
                    if folder.peerID == peer.peerID, let file = entry.file, file.modificationTime < now.timeIntervalSince1970 - staleTemporaryAge {
                        findings.append(DoctorFinding(kind: .staleTemporaryFile, message: "\(folder.peerID)/…/\(entry.name) is a leftover of an interrupted write",
                            repair: "delete it (doctor --fix does)", fixable: true))
                    }
                case let .duplicateCopy(original):
                    findings.append(duplicateCopyFinding(entry, of: original, in: folder, location: location))
                case _ where entry.kind.isFileSyncArtifact:
                    if let file = entry.file { findings += fileSyncFindings(entry.kind, path: path, file: file, place: .peerFolder(folder.peerID), now: now) }
                case .log, .receipt:
                    guard !entry.isRegularFile, let kind = entry.file?.kindIfNotRegular else { continue }
                    findings.append(DoctorFinding(kind: .foreignFile, message: "\(path) is \(kind), named like a \(entry.kind == .receipt ? "receipt" : "log") but never read as one",
                        repair: "move it out of the cloud (a file-sync tool or a script put it there); nothing waits for it", fixable: false))
                default:
                    findings.append(DoctorFinding(kind: .foreignFile, message: "\(path) is not a log or receipt",
                        repair: "delete it or move it aside; it is never imported", fixable: false))
                }
            }
        }

        // Every log, read and verified as an import would (decode, checksum, model, author,
        // number, stamp), and every receipt. Logs of another content epoch are leftovers of
        // removed content (their authors delete them once they notice the removal): never
        // applied, they count for nothing below.
        let epoch = try peer.store.contentEpoch()
        let verification = verifyLogs(scan, location: location, store: peer.store, now: now.timeIntervalSince1970)
        let decoded = verification.decoded
        findings += verification.problems.map { unreadableLogFinding($0.path, reason: $0.reason, author: $0.peerID, peer: peer) }
        findings += receiptFindings(scan, location: location)
        // Logs that read well but that this store refused when it applied them.
        var damaged = Set(verification.problems.map(\.path))
        // (Quarantined external data files are reported with the logs that wait for them, below.)
        for record in try peer.store.quarantined() where !record.path.hasPrefix(ContainerLocation.baselineFolderName + "/") && !record.path.hasPrefix(ContainerLocation.externalDataFolderName + "/")
            && !damaged.contains(record.path) {
            guard let file = DirectoryEntry.at(location.absolute(record.path)), record.matches(file) else { continue }
            damaged.insert(record.path)
            let author = String(record.path.prefix { $0 != "/" })
            findings.append(unreadableLogFinding(record.path, reason: "quarantined: \(record.reason)", author: author, peer: peer))
        }
        findings += baselineFindings(peer, location: location)
        let current = scan.logs.filter { (decoded[$0.peerID + "/" + $0.name].map { $0.contentEpoch == epoch }) ?? true }

        findings += sharedFolderFindings(location, now: now)
        findings += duplicateLogFindings(current)

        // Missing predecessors: later logs present (damaged ones aside: reported above), the next one absent.
        let readable = current.filter { !damaged.contains(location.relativeLogPath($0.peerID, $0.name)) }
        for peerID in Set(readable.map(\.peerID)).sorted() {
            let mine = readable.filter { $0.peerID == peerID && $0.number > knowledge[peerID] }
            guard let oldest = mine.min(by: { $0.number < $1.number }), oldest.number > knowledge[peerID] + 1 else { continue }
            let since = ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: mine.map(\.modificationTime).min() ?? 0))
            findings.append(DoctorFinding(kind: .missingPredecessor,
                message: "missing transaction \(knowledge[peerID] + 1) of peer \(peerID) since \(since); \(mine.count) later log(s) wait for it",
                repair: "the file never arrived: check the file-sync tool on that peer's machine, or let \(peerID) sync again so its outbox writes it", fixable: false))
        }

        // Logs waiting for their external data (as the last import found them).
        for wait in try peer.store.externalDataWaits() {
            findings.append(DoctorFinding(kind: .missingExternalData, message: wait,
                repair: "the file never arrived or arrived damaged: check the file-sync tool, or let the peer that saved the value sync again so it writes the file again", fixable: false))
        }

        // Garbage collection held back.
        let garbage = GarbageCollector(store: peer.store, location: location, logger: .silent)
            .collect(view: peer.baselines.view, policy: peer.configuration.baselinePolicy ?? .apple, now: now, dryRun: true)
        for (blocker, number) in garbage.blockingPeers.sorted(by: { $0.key < $1.key }) {
            findings.append(DoctorFinding(kind: .blockedGarbageCollection,
                message: "peer \(blocker)'s receipt (at \(number) of this peer) holds back the deletion of logs the baseline covers",
                repair: "let \(blocker) sync; if it is gone for good, the grace period releases the logs (to shorten it, \(.shortenGracePeriod))", fixable: false))
        }
        for stale in garbage.staleReceipts {
            findings.append(DoctorFinding(kind: .staleReceipt, message: "peer \(stale) has not synced for longer than the grace period while other peers did",
                repair: "if the device is gone for good, nothing is needed: its receipt no longer blocks anything", fixable: false))
        }

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
