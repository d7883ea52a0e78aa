import Foundation
import UbiquityBase
import UbiquityCore
import UbiquityPlist

// Rolling a baseline, in three steps: decide whether to roll (and why), write the archive
// beside the name, then put it under the name if nothing that arrived meanwhile forbids it.
extension Baseliner {
    /// Rolls a baseline if this peer may (it holds every visible baseline and has imported every
    /// visible log — for a roll due for stranded transactions, every one it could import) and
    /// should (the policy's thresholds, transactions no baseline or log holds, conflict copies
    /// the name lacks), or always when `force` is set and it may.
    /// `scan` saves a listing of the container when the caller has a fresh one.
    package func rollIfNeeded(policy: BaselinePolicy, force: Bool = false, scan: ContainerScan? = nil, catalog: BaselineCatalog? = nil) throws -> BaselineDecision {
        let roll: RollChoice.Roll
        switch try rollChoice(policy: policy, force: force, scan: scan, catalog: catalog) {
        case let .skip(decision): return decision
        case let .roll(chosen): roll = chosen
        }
        activity?.begin(logs: Int(roll.transactions), bytes: Int64(store.databaseSize))
        let work = scratchDirectory + "/roll-" + UUID().uuidString
        try AtomicFile.makeDirectory(work)
        defer { try? FileManager.default.removeItem(atPath: work) }
        let state = try RolledState(of: store, in: work)
        let removal = try store.contentRemoval()
        let directory = location.baselineDirectory
        do { try location.checkWritable(directory) } catch { throw SyncError.containerUnwritable(path: error.path, reason: error.message) }
        try AtomicFile.makeDirectory(directory)
        let temporary = directory + "/.baseline-" + UUID().uuidString + ".zip" + ContainerLocation.temporarySuffix
        defer { try? FileManager.default.removeItem(atPath: temporary) }
        let metadata = try writeArchive(try rolledMetadata(state.covered, catalog: roll.catalog, removal: removal), state: state, work: work, to: temporary)
        if let refusal = try putUnderTheName(temporary, covered: state.covered, removal: removal) { return refusal }
        if !readOnly {
            BaselineCatalog.recordRolled(location.baselinePath, storeChecksum: metadata.storeChecksum,
                                         verifiedList: verifiedList, caches: location.caches)
        }
        logger.log(.info, .baseline, "rollBaseline", "rolled a baseline at \(state.covered): \(roll.reason)")
        return .rolled(metadata, reason: roll.reason)
    }

    /// Whether a roll goes ahead, and why.
    enum RollChoice {
        struct Roll {
            var reason: String
            var catalog: BaselineCatalog
            /// Transactions since the baselines' view.
            var transactions: Int64
        }
        case roll(Roll)
        case skip(BaselineDecision)
    }

    /// Whether this peer may and should roll (`rollIfNeeded`), with the reason either way.
    private func rollChoice(policy: BaselinePolicy, force: Bool, scan: ContainerScan?, catalog: BaselineCatalog?) throws -> RollChoice {
        // A store that saved above own transactions it has not imported (restored from a
        // backup) holds writers beyond its knowledge: a baseline of it would fail every check.
        if try store.holdsOwnTransactionsAboveKnowledge() {
            return .skip(skipped("this store holds transactions of its own above \(store.knowledge[store.peerID]) but not all those below: it rolls once their logs are imported"))
        }
        let catalog = catalog ?? self.catalog()
        let knowledge = store.knowledge
        let scan = scan ?? ContainerScan(location: location)
        let view = catalog.view
        let stranded = BaselineProtocol.strandedPeers(knowledge: knowledge, view: view, hasLog: { scan.has(peer: $0, number: $1) })
        var waitingForGood = 0
        if let ahead = try firstUnimportedLog(scan) {
            // Transactions only this store holds go out even past logs nothing visible can let in
            // (they wait on transactions no file holds): the peer that could bring those may be
            // waiting for this one's roll (`BaselineProtocol.importableLogs`).
            guard !stranded.isEmpty else {
                return .skip(skipped("this peer has not imported every visible log (\(ahead.peerID) has transaction \(ahead.number))"))
            }
            let pending = try pendingLogs(scan)
            if let importable = pending.importable {
                return .skip(skipped("this peer has not imported every visible log (\(importable.peerID) has transaction \(importable.number))"))
            }
            waitingForGood = pending.waiting
        }
        if let unjoined = catalog.entries.first(where: { !knowledge.dominates($0.metadata.knowledge) }) {
            return .skip(skipped("\(unjoined.name) of \(unjoined.metadata.author) holds transactions this store has not joined yet"))
        }
        let unresolved = BaselineProtocol.unresolvedCopies(catalog.candidates)
        guard BaselineProtocol.mayRoll(knowledge: knowledge, candidates: catalog.candidates, hasUnimportedLog: false) else {
            return .skip(skipped("the baselines already hold everything this peer knows"))
        }
        let since = knowledge.entries.reduce(Int64(0)) { $0 + max(0, $1.value - view[$1.key]) }
        // One look at each log's file (each folder's asked together): asked last.
        lazy var bytes = ContainerScan.LogFile.files(scan.logs(above: { view[$0] })).reduce(Int64(0)) { $0 + ($1?.size ?? 0) }
        lazy var storeSize = store.databaseSize
        let reason: String
        if force {
            reason = "rolled on request (\(since) transactions since the last baseline)"
        } else if !stranded.isEmpty {
            reason = "no baseline or log holds transactions of \(stranded.joined(separator: ", ")) that this store holds"
                + (waitingForGood > 0 ? " (\(waitingForGood) visible log(s) wait on transactions no file holds)" : "")
        } else if !unresolved.isEmpty {
            reason = "conflict copies the baseline under the name has not resolved (\(unresolved.map(\.name).joined(separator: ", ")))"
        } else if since >= policy.transactionThreshold {
            reason = "\(since) transactions since the last baseline (threshold \(policy.transactionThreshold))"
        } else if bytes >= policy.minimumLogBytes && Double(bytes) >= policy.logBytesFraction * Double(storeSize) {
            reason = "\(bytes) bytes of logs, at least \(Int(policy.logBytesFraction * 100)) % of the \(storeSize)-byte store and \(policy.minimumLogBytes) bytes"
        } else {
            return .skip(skipped("only \(since) of the required \(policy.transactionThreshold) transactions, and \(bytes) bytes of logs (needs \(policy.minimumLogBytes) and \(Int(policy.logBytesFraction * 100)) % of the \(storeSize)-byte store)"))
        }
        return .roll(.init(reason: reason, catalog: catalog, transactions: since))
    }

    /// The store's state as a roll archives it, with the transactions it covers: a modest state
    /// is built in memory and deflated from there; a large one goes through a file.
    struct RolledState {
        let image: SQLiteImage?
        let file: String
        let covered: KnowledgeVector

        init(of store: PersistentStore, in work: String) throws {
            file = work + "/" + BaselineArchive.storeName
            if store.databaseSize <= BaselineArchive.inMemoryStateLimit {
                (image, covered) = try store.stateFileImage()
            } else {
                (image, covered) = (nil, try store.writeStateFile(to: file))
            }
        }
    }

    /// The new baseline's metadata, but for the store checksum, taken while the state is zipped.
    private func rolledMetadata(_ covered: KnowledgeVector, catalog: BaselineCatalog, removal: ContentEpoch.Removal?) throws -> BaselineMetadata {
        var metadata = BaselineMetadata(
            author: store.peerID, knowledge: covered, previousKnowledge: catalog.view, modelVersionHash: store.model.hash,
            storeName: store.storeName, contentName: store.contentName, created: store.now,
            storeChecksum: "", // taken while the state file is zipped (`BaselineArchive.write`)
            modelChecksum: CanonicalEncoding.sha256Hex(of: store.model.plistValue), contentEpoch: removal?.epoch)
        metadata.contentEpochGeneration = removal?.generation ?? 0
        metadata.contentEpochDate = removal?.date ?? 0
        metadata.resolves = BaselineProtocol.resolvedByRoll(catalog.candidates).sorted()
        metadata.externalData = try store.externalReferences().map(\.sha256).sorted()
        return metadata
    }

    /// Writes the archive to `temporary`; for encrypted content, made on the device and only its
    /// sealed form enters the cloud. Returns the metadata with its store checksum.
    private func writeArchive(_ metadata: BaselineMetadata, state: RolledState, work: String, to temporary: String) throws -> BaselineMetadata {
        func write(to path: String) throws -> BaselineMetadata {
            if let image = state.image { return try BaselineArchive.write(metadata: metadata, model: store.model, storeImage: image, to: path) }
            return try BaselineArchive.write(metadata: metadata, model: store.model, storeFile: state.file, to: path)
        }
        do {
            guard let key = try location.sealingKey(forWriting: location.baselinePath) else { return try write(to: temporary) }
            let plain = work + "/baseline.zip"
            let written = try write(to: plain)
            try SealedFile.sealFile(plain, to: temporary, key: key)
            return written
        } catch let error as FileError {
            throw SyncError.containerUnwritable(path: error.path, reason: error.message)
        }
    }

    /// Renames the archive onto the name unless what the folder holds now forbids it (the
    /// decision then, `nil` once renamed). The check and the rename happen under a lock file,
    /// so two peers on one machine (or on a file system with working locks, such as NFS) never
    /// replace a baseline blindly.
    private func putUnderTheName(_ temporary: String, covered: KnowledgeVector, removal: ContentEpoch.Removal?) throws -> BaselineDecision? {
        let lock = try? FileLock(directory: location.baselineDirectory, name: ".lock" + ContainerLocation.temporarySuffix, wait: true)
        defer { lock?.release() }
        let latest = self.catalog()
        if let unjoined = latest.entries.first(where: { !covered.dominates($0.metadata.knowledge) }) {
            return skipped("\(unjoined.name) of \(unjoined.metadata.author) arrived meanwhile with transactions this baseline lacks")
        }
        switch latest.atName {
        case .absent, .unusable:
            break
        case let .usable(current):
            guard BaselineProtocol.mayReplace(covered, current: current.candidate) else {
                return skipped("the baseline under the name (\(current.metadata.author)'s) already holds everything this one would")
            }
        case let .otherEpoch(other):
            let theirs = ContentEpoch.Removal(epoch: other.contentEpoch ?? "", generation: other.contentEpochGeneration, date: other.contentEpochDate)
            guard let removal, removal.isLater(than: theirs) || other.contentEpoch == nil else {
                return skipped("the baseline under the name belongs to a content removal this peer has not heard of yet")
            }
        }
        guard rename(temporary, location.baselinePath) == 0 else {
            let error = FileError(path: location.baselinePath, operation: "rename", errno: errno)
            throw SyncError.containerUnwritable(path: error.path, reason: error.message)
        }
        return nil
    }
}
