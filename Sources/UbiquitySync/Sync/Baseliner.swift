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
    var verifiedList: String { scratchDirectory + "/verified-baselines" }

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

    /// The first log of this content epoch above the store's knowledge that is not quarantined
    /// and does not wait behind a quarantined log of its author.
    func firstUnimportedLog(_ scan: ContainerScan) throws -> ContainerScan.LogFile? {
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

    func skipped(_ reason: String) -> BaselineDecision {
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
