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
    /// Nothing was rolled (and nothing written into the baseline folder).
    public var isSkipped: Bool { if case .skipped = self { return true } else { return false } }
}

/// Rolls baselines, joins into the store the baselines it needs, and deletes conflict copies
/// of `baseline.zip` that the baseline under the name holds entirely (Docs/Lifecycle.md; the rule is in
/// Docs/Lifecycle.md and its decisions in `BaselineProtocol`).
package struct Baseliner {
    let store: PersistentStore
    let location: ContainerLocation
    /// A local folder for extracting and building archives.
    let scratchDirectory: String
    let logger: UbiquityLogger
    /// A peer opened read-only: the catalog writes nothing on the device (`BaselineCatalog`).
    let readOnly: Bool
    /// Told when a roll begins writing (`nil`: nobody listens); the caller tells its end.
    package var activity: ActivityReporter?

    package init(store: PersistentStore, location: ContainerLocation, scratchDirectory: String, readOnly: Bool = false, logger: UbiquityLogger) {
        self.store = store
        self.location = location
        self.scratchDirectory = scratchDirectory
        self.readOnly = readOnly
        self.logger = logger
    }

    /// Every baseline this peer sees, checked; with `reverify`, each extracted and verified
    /// again, whatever was checked before.
    package func catalog(reverify: Bool = false) -> BaselineCatalog {
        BaselineCatalog(location: location, store: store, verifiedList: reverify ? nil : verifiedList, readOnly: readOnly, logger: logger)
    }

    /// The device's list of baselines already verified (`BaselineCatalog`).
    private var verifiedList: String { scratchDirectory + "/verified-baselines" }

    // MARK: Joining

    /// Joins every baseline the store needs (`BaselineProtocol.baselinesToJoin`): it holds a
    /// transaction the store lacks and cannot import, or the store holds nothing yet. A baseline
    /// whose state breaks the model is set aside (quarantined) and the others still count.
    /// Returns the objects that changed and the metadata of the baselines joined.
    package func joinNeeded(_ catalog: BaselineCatalog, scan: ContainerScan) throws -> (changes: ObjectChanges, joined: [BaselineMetadata], tried: Bool) {
        let knowledge = store.knowledge
        let chosen = BaselineProtocol.baselinesToJoin(knowledge: knowledge, holdsNothing: knowledge.entries.isEmpty,
                                                      candidates: catalog.candidates, hasLog: { scan.has(peer: $0, number: $1) })
        var changes = ObjectChanges()
        var joined: [BaselineMetadata] = []
        for candidate in chosen {
            guard let entry = catalog.entries.first(where: { $0.name == candidate.name }) else { continue }
            let work = scratchDirectory + "/join-" + UUID().uuidString
            defer { try? FileManager.default.removeItem(atPath: work) }
            do {
                let stateFile = try BaselineArchive.extractStore(entry.path, metadata: entry.metadata, into: work, sealing: location.sealing, recentlyVerified: location.caches.verifiedStore)
                changes.merge(try store.joinStateFile(at: stateFile, knowledge: entry.metadata.knowledge))
                joined.append(entry.metadata)
                logger.log(.info, .baseline, "joinBaseline", "joined \(entry.name) of \(entry.metadata.author) at \(entry.metadata.knowledge)")
            } catch let error as StateFileError {
                setAside(entry, reason: error.description)
            } catch let error as BaselineError {
                setAside(entry, reason: error.description)
            }
        }
        return (changes, joined, !chosen.isEmpty)
    }

    private func setAside(_ entry: BaselineCatalog.Entry, reason: String) {
        let relative = location.relativeBaselinePath(entry.name)
        logger.error(.baseline, "joinBaseline", "set aside \(relative): \(reason)")
        try? store.recordQuarantine(path: relative, file: entry.file, reason: reason)
    }

    // MARK: Rolling

    /// Rolls a baseline if this peer may (it holds every visible baseline and has imported every
    /// visible log — for a roll due for stranded transactions, every one it could import) and
    /// should (the policy's thresholds, transactions no baseline or log holds, conflict copies
    /// the name lacks), or always when `force` is set and it may.
    /// `scan` saves a listing of the container when the caller has a fresh one.
    package func rollIfNeeded(policy: BaselinePolicy, force: Bool = false, scan: ContainerScan? = nil, catalog: BaselineCatalog? = nil) throws -> BaselineDecision {
        // A store that saved above own transactions it has not imported (restored from a
        // backup) holds writers beyond its knowledge: a baseline of it would fail every check.
        if try store.holdsOwnTransactionsAboveKnowledge() {
            return skipped("this store holds transactions of its own above \(store.knowledge[store.peerID]) but not all those below: it rolls once their logs are imported")
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
                return skipped("this peer has not imported every visible log (\(ahead.peerID) has transaction \(ahead.number))")
            }
            let pending = try pendingLogs(scan)
            if let importable = pending.importable {
                return skipped("this peer has not imported every visible log (\(importable.peerID) has transaction \(importable.number))")
            }
            waitingForGood = pending.waiting
        }
        if let unjoined = catalog.entries.first(where: { !knowledge.dominates($0.metadata.knowledge) }) {
            return skipped("\(unjoined.name) of \(unjoined.metadata.author) holds transactions this store has not joined yet")
        }
        let unresolved = BaselineProtocol.unresolvedCopies(catalog.candidates)
        guard BaselineProtocol.mayRoll(knowledge: knowledge, candidates: catalog.candidates, hasUnimportedLog: false) else {
            return skipped("the baselines already hold everything this peer knows")
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
            return skipped("only \(since) of the required \(policy.transactionThreshold) transactions, and \(bytes) bytes of logs (needs \(policy.minimumLogBytes) and \(Int(policy.logBytesFraction * 100)) % of the \(storeSize)-byte store)")
        }

        activity?.begin(logs: Int(since), bytes: Int64(storeSize))
        let work = scratchDirectory + "/roll-" + UUID().uuidString
        try AtomicFile.makeDirectory(work)
        defer { try? FileManager.default.removeItem(atPath: work) }
        // A modest state is built in memory and deflated from there; a large one goes through a file.
        let stateFile = work + "/" + BaselineArchive.storeName
        let stateImage: SQLiteImage?, covered: KnowledgeVector
        if store.databaseSize <= BaselineArchive.inMemoryStateLimit {
            (stateImage, covered) = try store.stateFileImage()
        } else {
            (stateImage, covered) = (nil, try store.writeStateFile(to: stateFile))
        }
        func writeArchive(_ metadata: BaselineMetadata, to path: String) throws -> BaselineMetadata {
            if let stateImage { return try BaselineArchive.write(metadata: metadata, model: store.model, storeImage: stateImage, to: path) }
            return try BaselineArchive.write(metadata: metadata, model: store.model, storeFile: stateFile, to: path)
        }
        let removal = try store.contentRemoval()
        var metadata = BaselineMetadata(
            author: store.peerID, knowledge: covered, previousKnowledge: view, modelVersionHash: store.model.hash,
            storeName: store.storeName, contentName: store.contentName, created: store.now,
            storeChecksum: "", // taken while the state file is zipped (`BaselineArchive.write`)
            modelChecksum: CanonicalEncoding.sha256Hex(of: store.model.plistValue), contentEpoch: removal?.epoch)
        metadata.contentEpochGeneration = removal?.generation ?? 0
        metadata.contentEpochDate = removal?.date ?? 0
        metadata.resolves = BaselineProtocol.resolvedByRoll(catalog.candidates).sorted()
        metadata.externalData = try store.externalReferences().map(\.sha256).sorted()
        let directory = location.baselineDirectory
        do { try location.checkWritable(directory) } catch { throw SyncError.containerUnwritable(path: error.path, reason: error.message) }
        try AtomicFile.makeDirectory(directory)
        let temporary = directory + "/.baseline-" + UUID().uuidString + ".zip" + ContainerLocation.temporarySuffix
        defer { try? FileManager.default.removeItem(atPath: temporary) }
        do {
            if let key = try location.sealingKey(forWriting: location.baselinePath) {
                // Encrypted content: the archive is made on the device and only its sealed form enters the cloud.
                let plain = work + "/baseline.zip"
                metadata = try writeArchive(metadata, to: plain)
                try SealedFile.sealFile(plain, to: temporary, key: key)
            } else {
                metadata = try writeArchive(metadata, to: temporary)
            }
        } catch let error as FileError {
            throw SyncError.containerUnwritable(path: error.path, reason: error.message)
        }
        // The check and the rename happen under a lock file, so two peers on one machine (or on
        // a file system with working locks, such as NFS) never replace a baseline blindly.
        let lock = try? FileLock(directory: directory, name: ".lock" + ContainerLocation.temporarySuffix, wait: true)
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
        if !readOnly {
            BaselineCatalog.recordRolled(location.baselinePath, storeChecksum: metadata.storeChecksum,
                                         verifiedList: verifiedList, caches: location.caches)
        }
        logger.log(.info, .baseline, "rollBaseline", "rolled a baseline at \(covered): \(reason)")
        return .rolled(metadata, reason: reason)
    }

    /// The first log of this content epoch above the store's knowledge that is not quarantined
    /// and does not wait behind a quarantined log of its author.
    private func firstUnimportedLog(_ scan: ContainerScan) throws -> ContainerScan.LogFile? {
        let epoch = try store.contentEpoch()
        return try unimportedLogs(scan).first { !ContentEpoch.logBelongsToOtherEpoch($0, than: epoch, in: location) }
    }

    /// The logs above the store's knowledge that are not quarantined and do not wait behind a
    /// quarantined log of their author (of any content epoch: telling reads the file).
    func unimportedLogs(_ scan: ContainerScan) throws -> [ContainerScan.LogFile] {
        let knowledge = store.knowledge
        // Leftovers of removed content are nobody's to import. A quarantined log never blocks a roll, nor do the logs
        // that wait for it: a damaged file may stay damaged for good, and the baseline simply does not cover them; should
        // it become whole, they import on top. The quarantine is asked first: a known-bad file, and what waits, is never read.
        let quarantined = try store.quarantineSignatures()
        var blocked: [String: Int64] = [:]
        let unimported = scan.logs(above: { knowledge[$0] })
        for log in unimported {
            if let signature = quarantined[location.relativeLogPath(log.peerID, log.name)], signature == log.file?.signature {
                blocked[log.peerID] = min(blocked[log.peerID] ?? .max, log.number)
            }
        }
        return unimported.filter { log in blocked.isEmpty || log.number < blocked[log.peerID] ?? .max }
    }

    private func skipped(_ reason: String) -> BaselineDecision {
        logger.log(.verbose, .baseline, "rollBaseline", "no baseline rolled: \(reason)")
        return .skipped(reason: reason)
    }

    // MARK: Conflict copies

    /// Deletes the conflict copies of `baseline.zip` that the baseline under the name resolved
    /// (rolled by a peer that had joined them). Returns their names.
    @discardableResult
    package func deleteRedundantCopies(_ catalog: BaselineCatalog) -> [String] {
        let redundant = BaselineProtocol.redundantCopies(catalog.candidates)
        var deleted: [String] = []
        for copy in redundant where location.isConfined(location.baselineDirectory) && unlink(location.baselineDirectory + "/" + copy.name) == 0 {
            deleted.append(copy.name)
            logger.log(.info, .baseline, "resolveCopies", "deleted \(copy.name): the baseline under the name was rolled after it and holds all it holds")
        }
        return deleted
    }
}
