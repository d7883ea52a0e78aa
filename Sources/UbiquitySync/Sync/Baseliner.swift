import Foundation
import UbiquityBase
import UbiquityCore
import UbiquityPlist

/// What a baseline decision was, with its figures (logged at level 3 and shown by the CLI).
public enum BaselineDecision: Sendable, Equatable {
    case rolled(BaselineMetadata, reason: String)
    case skipped(reason: String)

    public var reason: String {
        switch self {
        case let .rolled(_, reason), let .skipped(reason): return reason
        }
    }
}

/// Rolls baselines and brings stores that fell behind one up to it (DESIGN §6).
package struct Baseliner {
    let store: PersistentStore
    let location: ContainerLocation
    /// A local folder for extracting and building archives.
    let scratchDirectory: String
    let logger: UbiquityLogger

    package init(store: PersistentStore, location: ContainerLocation, scratchDirectory: String, logger: UbiquityLogger) {
        self.store = store
        self.location = location
        self.scratchDirectory = scratchDirectory
        self.logger = logger
    }

    /// The current baseline's metadata; `nil` when there is none. An unreadable baseline (e.g.
    /// truncated in transfer) is reported and treated as absent: logs still import.
    package func currentMetadata() -> BaselineMetadata? {
        guard FileManager.default.fileExists(atPath: location.baselinePath) else { return nil }
        do {
            let metadata = try BaselineArchive.readMetadata(location.baselinePath)
            guard metadata.modelVersionHash == store.model.hash else { throw BaselineError.otherModel(metadata.modelVersionHash) }
            // A baseline of removed content (rolled before its author knew) is no baseline here.
            guard metadata.contentEpoch == (try? store.contentEpoch()) ?? nil else {
                logger.log(.verbose, "PFUbiquityBaseline", "metadata", "ignoring the baseline of \(metadata.author): it belongs to another content epoch")
                return nil
            }
            return metadata
        } catch {
            logger.log(.warning, "PFUbiquityBaseline", "metadata", "ignoring the baseline at \(location.baselinePath): \(error)")
            return nil
        }
    }

    /// Rolls a baseline if this peer may (its knowledge covers every visible log) and should
    /// (the policy's thresholds), or always when `force` is set and it may.
    /// `scan` saves a listing of the container when the caller has a fresh one.
    package func rollIfNeeded(policy: BaselinePolicy, force: Bool = false, scan: ContainerScan? = nil) throws -> BaselineDecision {
        let current = currentMetadata()
        let knowledge = store.knowledge
        let scan = scan ?? ContainerScan(location: location)
        // Leftovers of removed content (saved by a peer that had not heard of the removal, and
        // that has not started over yet, or never comes back) are nobody's to import.
        let epoch = try store.contentEpoch()
        // A quarantined log never blocks a roll: a damaged file may stay damaged for good (its
        // author gone, or of removed content but unreadable, so nobody can tell), and the
        // baseline simply does not cover it; should it become whole, it imports on top.
        let ahead = try scan.logs.first { log in
            guard log.number > knowledge[log.peerID], !ContentEpoch.logBelongsToOtherEpoch(log.path, than: epoch) else { return false }
            let relative = "\(log.peerID)/\(location.contentName)/\(location.modelHash)/\(log.name)"
            return try !store.isQuarantined(path: relative, size: log.size, modificationTime: log.modificationTime)
        }
        if let ahead {
            return skipped("this peer has not imported every visible log (\(ahead.peerID) has transaction \(ahead.number))")
        }
        let baseKnowledge = current?.knowledge ?? KnowledgeVector()
        if baseKnowledge.dominates(knowledge) { return skipped("the current baseline already covers everything this peer knows") }
        let since = knowledge.entries.reduce(Int64(0)) { $0 + max(0, $1.value - baseKnowledge[$1.key]) }
        let bytes = scan.logs.filter { $0.number > baseKnowledge[$0.peerID] }.reduce(Int64(0)) { $0 + $1.size }
        let storeSize = store.fileSize
        let stranded = strandedPeers(knowledge: knowledge, baseline: baseKnowledge, scan: scan)
        let reason: String
        if force {
            reason = "rolled on request (\(since) transactions since the last baseline)"
        } else if !stranded.isEmpty {
            reason = "the baseline lacks transactions whose logs are gone (of \(stranded.joined(separator: ", "))): a file-sync tool kept an older baseline"
        } else if since >= policy.transactionThreshold {
            reason = "\(since) transactions since the last baseline (threshold \(policy.transactionThreshold))"
        } else if bytes >= policy.minimumLogBytes && Double(bytes) >= policy.logBytesFraction * Double(storeSize) {
            reason = "\(bytes) bytes of logs, at least \(Int(policy.logBytesFraction * 100)) % of the \(storeSize)-byte store and \(policy.minimumLogBytes) bytes"
        } else {
            return skipped("only \(since) of the required \(policy.transactionThreshold) transactions, and \(bytes) bytes of logs (needs \(policy.minimumLogBytes) and \(Int(policy.logBytesFraction * 100)) % of the \(storeSize)-byte store)")
        }

        let work = scratchDirectory + "/roll-" + UUID().uuidString
        try AtomicFile.makeDirectory(work)
        defer { try? FileManager.default.removeItem(atPath: work) }
        let stateFile = work + "/" + BaselineArchive.storeName
        let covered = try store.writeStateFile(to: stateFile)
        let metadata = BaselineMetadata(
            author: store.peerID, knowledge: covered, previousKnowledge: baseKnowledge, modelVersionHash: store.model.hash,
            storeName: store.storeName, contentName: store.contentName, created: store.now,
            storeChecksum: try BaselineArchive.sha256Hex(ofFile: stateFile),
            modelChecksum: CanonicalEncoding.sha256Hex(of: store.model.plistValue), contentEpoch: try store.contentEpoch())
        let directory = (location.baselinePath as NSString).deletingLastPathComponent
        try AtomicFile.makeDirectory(directory)
        let temporary = directory + "/.baseline-" + UUID().uuidString + ".zip.nosync"
        try BaselineArchive.write(metadata: metadata, model: store.model, storeFile: stateFile, to: temporary)
        // Replace only a baseline this one dominates (another peer may have rolled meanwhile).
        // The check and the rename happen under a lock file, so two peers on one machine (or on
        // a file system with working locks, such as NFS) never replace a baseline blindly.
        let lock = try? FileLock(directory: directory, name: ".lock.nosync", wait: true)
        defer { lock?.release() }
        if let latest = currentMetadata(), !covered.dominates(latest.knowledge) {
            try? FileManager.default.removeItem(atPath: temporary)
            return skipped("another peer rolled a baseline this one does not dominate (\(latest.author))")
        }
        guard rename(temporary, location.baselinePath) == 0 else {
            let error = FileError(path: location.baselinePath, operation: "rename", errno: errno)
            try? FileManager.default.removeItem(atPath: temporary)
            throw SyncError.containerUnwritable(path: error.path, reason: error.message)
        }
        logger.log(.info, "PFUbiquityBaseline", "rollBaseline", "rolled a baseline at \(covered): \(reason)")
        return .rolled(metadata, reason: reason)
    }

    /// For each peer with a transaction this store applied, the baseline lacks and the container
    /// no longer holds: up to where this store knows it (its later logs, even if present, could
    /// not be imported after the gap).
    private func strandedTransactions(beyond baseline: KnowledgeVector) -> KnowledgeVector {
        let knowledge = store.knowledge
        let ahead = knowledge.entries.filter { $0.value > baseline[$0.key] }
        guard !ahead.isEmpty else { return KnowledgeVector() }
        let scan = ContainerScan(location: location)
        return KnowledgeVector(ahead.filter { peer, number in
            ((baseline[peer] + 1)...number).contains { !scan.has(peer: peer, number: $0) }
        })
    }

    /// Peers with transactions this peer has applied whose logs are gone from the container
    /// while the baseline does not hold them (a file-sync tool kept a concurrent, older baseline
    /// than the one they were collected under). A newcomer could never get them, so such a
    /// baseline is replaced at once.
    private func strandedPeers(knowledge: KnowledgeVector, baseline: KnowledgeVector, scan: ContainerScan) -> [String] {
        knowledge.entries.keys.sorted().filter { peer in
            knowledge[peer] > baseline[peer] && !scan.has(peer: peer, number: baseline[peer] + 1)
        }
    }

    private func skipped(_ reason: String) -> BaselineDecision {
        logger.log(.verbose, "PFUbiquityBaseline", "rollBaseline", "no baseline rolled: \(reason)")
        return .skipped(reason: reason)
    }

    /// Whether this store must start from the baseline: it lacks something the baseline covers,
    /// and either it is new or a log it would need is gone from the container.
    package func mustAdopt(_ metadata: BaselineMetadata) -> Bool {
        let knowledge = store.knowledge
        guard !knowledge.dominates(metadata.knowledge) else { return false }
        if knowledge.entries.isEmpty { return true }
        let scan = ContainerScan(location: location)
        return metadata.knowledge.entries.contains { peer, number in
            knowledge[peer] < number && !scan.has(peer: peer, number: knowledge[peer] + 1)
        }
    }

    /// Replaces the store's merge state by the baseline's. The outbox must be empty (its logs
    /// are in the container and are imported again, so no unsent change is lost). What this
    /// store holds beyond the baseline that cannot be imported again — a peer's transactions
    /// with a log gone from the container — is kept: the store goes on knowing them and saves
    /// again what of them still wins, so the next roll gives everybody a baseline holding them.
    /// Returns the objects that changed, as an import would report them.
    package func adopt(_ metadata: BaselineMetadata, format: PlistFormat) throws -> ObjectChanges {
        let work = scratchDirectory + "/adopt-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: work) }
        let stateFile = try BaselineArchive.extractStore(location.baselinePath, metadata: metadata, into: work)
        let before = try store.liveObjectVersions()
        let stranded = strandedTransactions(beyond: metadata.knowledge)
        let kept = stranded.entries.isEmpty ? nil : try store.strandedState(of: stranded, above: metadata.knowledge)
        var knowledge = metadata.knowledge
        knowledge.formMaximum(stranded)
        try store.adoptStateFile(at: stateFile, knowledge: knowledge)
        if let kept {
            let saved = try kept.isEmpty ? ObjectChanges() : store.keep(kept, format: format)
            logger.log(.info, "PFUbiquityBaseline", "adoptBaseline", "the baseline of \(metadata.author) lacks transactions whose logs are gone (\(stranded)); this store keeps them and saved again \(saved.inserted.count + saved.updated.count + saved.deleted.count) object(s) of theirs that still win")
        }
        var changes = ObjectChanges()
        if before.isEmpty {
            // A newcomer: everything alive in the baseline is new here, no fingerprint needed
            // (computing them was 40 % of joining a container of 100k objects).
            changes.inserted = try store.liveObjectIDs()
        } else {
            let after = try store.liveObjectVersions()
            for (id, version) in after {
                if let old = before[id] { if old != version { changes.updated.insert(id) } } else { changes.inserted.insert(id) }
            }
            changes.deleted = Set(before.keys).subtracting(after.keys)
        }
        logger.log(.info, "PFUbiquityBaseline", "adoptBaseline", "started from the baseline of \(metadata.author) at \(metadata.knowledge)")
        return changes
    }
}
