import Foundation
import UbiquityBase
import UbiquityCore
import UbiquitySync

// The checks `Doctor.examine` runs one after the other, each returning what it found.
extension Doctor {
    /// A fallback store left beside an account store: its initial import did not finish.
    static func fallbackFindings(_ peer: UbiquityPeer) -> [DoctorFinding] {
        let fallback = peer.folder.storeFile(kind: .fallback, storeName: peer.configuration.storeName)
        guard peer.kind == .account, FileManager.default.fileExists(atPath: fallback) else { return [] }
        return [DoctorFinding(kind: .staleFallback,
            message: "a fallback store is left from an initial import that did not finish (\(fallback))",
            repair: "\(.openAccountStore): it finishes the import and migrates what was saved in the fallback", fixable: true)]
    }

    /// Why the content cannot be read here, when it cannot (`nil`: it can). Nothing unread is
    /// then reported as damaged.
    static func sealingFindings(_ location: ContainerLocation) -> [DoctorFinding]? {
        guard case .locked = location.sealing.refresh() else { return nil }
        if location.sealing.isRecordMissing {
            return [DoctorFinding(kind: .encryptedWithoutKey, message: SyncError.keyRecordMissing(path: location.encryptionRecordPath).description,
                repair: "put the record back (a backup of the cloud, another machine's copy); saves wait in the outbox meanwhile, and nothing is written in plaintext", fixable: false)]
        }
        if location.sealing.alteration != nil {
            return [DoctorFinding(kind: .alteredKeyRecord, message: location.sealing.lockedError.description,
                repair: "a device holding the key puts it back at its next sync; or \(.unlockEncryption) here with the passphrase; saves wait in the outbox meanwhile", fixable: false)]
        }
        return [DoctorFinding(kind: .encryptedWithoutKey, message: ContentSealing.noKeyMessage,
            repair: "\(.unlockEncryption) with the passphrase; saves wait in the outbox meanwhile", fixable: false)]
    }

    /// What the ubiquity root and each peer's folder hold besides logs and receipts: strangers,
    /// leftovers of interrupted writes, copies a file-sync tool made, files that are not logs.
    static func entryFindings(_ scan: ContainerScan, peer: UbiquityPeer, location: ContainerLocation, now: Date) -> [DoctorFinding] {
        var findings: [DoctorFinding] = []
        for stranger in scan.strangers {
            let what = stranger.type == .symbolicLink ? "is a symbolic link, never followed" : "is not a peer's folder"
            findings.append(DoctorFinding(kind: .foreignFile, message: "'\(stranger.name)' in the ubiquity root \(what)",
                repair: "move it out of \(location.ubiquityRoot); it is never imported", fixable: false))
        }
        for folder in scan.peerFolders {
            findings += folderFindings(peer: folder.peerID, location)
            for entry in folder.entries {
                if let finding = entryFinding(entry, in: folder, peer: peer, location: location, now: now) { findings += finding }
            }
        }
        return findings
    }

    /// What one entry of a peer's folder tells, if anything.
    private static func entryFinding(_ entry: ContainerEntry, in folder: ContainerScan.PeerFolder, peer: UbiquityPeer,
                                     location: ContainerLocation, now: Date) -> [DoctorFinding]? {
        let path = location.relativeLogPath(folder.peerID, entry.name)
        switch entry.kind {
        case .temporary:
            guard folder.peerID == peer.peerID, let file = entry.file, file.modificationTime < now.timeIntervalSince1970 - staleTemporaryAge else { return nil }
            return [DoctorFinding(kind: .staleTemporaryFile, message: "\(folder.peerID)/…/\(entry.name) is a leftover of an interrupted write",
                repair: "delete it (doctor --fix does)", fixable: true)]
        case let .duplicateCopy(original):
            return [duplicateCopyFinding(entry, of: original, in: folder, location: location)]
        case _ where entry.kind.isFileSyncArtifact:
            guard let file = entry.file else { return nil }
            return fileSyncFindings(entry.kind, path: path, file: file, place: .peerFolder(folder.peerID), now: now)
        case .log, .receipt:
            guard !entry.isRegularFile, let kind = entry.file?.kindIfNotRegular else { return nil }
            return [DoctorFinding(kind: .foreignFile, message: "\(path) is \(kind), named like a \(entry.kind == .receipt ? "receipt" : "log") but never read as one",
                repair: "move it out of the cloud (a file-sync tool or a script put it there); nothing waits for it", fixable: false)]
        default:
            return [DoctorFinding(kind: .foreignFile, message: "\(path) is not a log or receipt",
                repair: "delete it or move it aside; it is never imported", fixable: false)]
        }
    }

    /// Logs that read well but that this store refused when it applied them, still as they were
    /// then; each is added to `damaged`. (Quarantined external data files are reported with the
    /// logs that wait for them.)
    static func quarantineFindings(_ peer: UbiquityPeer, location: ContainerLocation, damaged: inout Set<String>) throws -> [DoctorFinding] {
        var findings: [DoctorFinding] = []
        for record in try peer.store.quarantined() where !record.path.hasPrefix(ContainerLocation.baselineFolderName + "/") && !record.path.hasPrefix(ContainerLocation.externalDataFolderName + "/")
            && !damaged.contains(record.path) {
            guard let file = DirectoryEntry.at(location.absolute(record.path)), record.matches(file) else { continue }
            damaged.insert(record.path)
            let author = String(record.path.prefix { $0 != "/" })
            findings.append(unreadableLogFinding(record.path, reason: "quarantined: \(record.reason)", author: author, peer: peer))
        }
        return findings
    }

    /// Peers whose later logs are present while the next one this store needs is absent.
    static func missingPredecessorFindings(_ readable: [ContainerScan.LogFile], knowledge: KnowledgeVector) -> [DoctorFinding] {
        var findings: [DoctorFinding] = []
        for peerID in Set(readable.map(\.peerID)).sorted() {
            let mine = readable.filter { $0.peerID == peerID && $0.number > knowledge[peerID] }
            guard let oldest = mine.min(by: { $0.number < $1.number }), oldest.number > knowledge[peerID] + 1 else { continue }
            let since = ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: mine.map(\.modificationTime).min() ?? 0))
            findings.append(DoctorFinding(kind: .missingPredecessor,
                message: "missing transaction \(knowledge[peerID] + 1) of peer \(peerID) since \(since); \(mine.count) later log(s) wait for it",
                repair: "the file never arrived: check the file-sync tool on that peer's machine, or let \(peerID) sync again so its outbox writes it", fixable: false))
        }
        return findings
    }

    /// Logs waiting for their external data, as the last import found them.
    static func externalDataFindings(_ peer: UbiquityPeer) throws -> [DoctorFinding] {
        try peer.store.externalDataWaits().map { wait in
            DoctorFinding(kind: .missingExternalData, message: wait,
                repair: "the file never arrived or arrived damaged: check the file-sync tool, or let the peer that saved the value sync again so it writes the file again", fixable: false)
        }
    }

    /// Receipts that hold back garbage collection, and peers silent past the grace period.
    static func garbageFindings(_ peer: UbiquityPeer, location: ContainerLocation, now: Date) -> [DoctorFinding] {
        let garbage = GarbageCollector(store: peer.store, location: location, logger: .silent)
            .collect(view: peer.baselines.view, policy: peer.configuration.baselinePolicy ?? .apple, now: now, dryRun: true)
        var findings: [DoctorFinding] = []
        for (blocker, number) in garbage.blockingPeers.sorted(by: { $0.key < $1.key }) {
            findings.append(DoctorFinding(kind: .blockedGarbageCollection,
                message: "peer \(blocker)'s receipt (at \(number) of this peer) holds back the deletion of logs the baseline covers",
                repair: "let \(blocker) sync; if it is gone for good, the grace period releases the logs (to shorten it, \(.shortenGracePeriod))", fixable: false))
        }
        for stale in garbage.staleReceipts {
            findings.append(DoctorFinding(kind: .staleReceipt, message: "peer \(stale) has not synced for longer than the grace period while other peers did",
                repair: "if the device is gone for good, nothing is needed: its receipt no longer blocks anything", fixable: false))
        }
        return findings
    }
}
