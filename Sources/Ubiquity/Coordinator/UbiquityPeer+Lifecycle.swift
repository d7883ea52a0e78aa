import Foundation
import UbiquityBase
import UbiquityCore
import UbiquitySync

// Baselines, garbage collection and content removal for one peer (Docs/Lifecycle.md).
extension UbiquityPeer {
    func makeBaseliner(_ location: ContainerLocation) -> Baseliner {
        Baseliner(store: store, location: location, scratchDirectory: folder.stagingDirectory, readOnly: isReadOnly, logger: logger)
    }

    /// The metadata of the baseline under the name (`baseline.zip`), or `nil` when there is none
    /// this store can use (absent, damaged, or of another content epoch).
    public var baselineMetadata: BaselineMetadata? { location.flatMap { makeBaseliner($0).catalog().entryAtName?.metadata } }

    /// Every baseline this peer can use — the one under the name and the conflict copies a
    /// file-sync engine made of it — and what they hold together (its view).
    public var baselines: (all: [BaselineMetadata], view: KnowledgeVector) {
        guard let location else { return ([], KnowledgeVector()) }
        let catalog = makeBaseliner(location).catalog()
        return (catalog.entries.map(\.metadata), catalog.view)
    }

    /// Rolls a baseline now if this peer may (it has imported every visible log); with
    /// `force` regardless of the policy's thresholds.
    public func rollBaseline(force: Bool = false) throws -> BaselineDecision {
        try refuseUnlessWritable("roll a baseline")
        guard let location else { throw SyncError.signedOut }
        return try syncLock.withLock {
            try rolling(makeBaseliner(location)) { try $0.rollIfNeeded(policy: configuration.baselinePolicy ?? .apple, force: force) }
        }
    }

    /// Deletes this peer's own logs that the baseline covers and nobody needs any more.
    public func collectGarbage(policy: BaselinePolicy? = nil, now: Date? = nil) -> GarbageReport {
        guard let location else { return GarbageReport(note: "signed out: nothing in the cloud") }
        if isReadOnly { return GarbageReport(note: "opened read-only: nothing deleted") }
        return syncLock.withLock {
            collectingGarbage {
                GarbageCollector(store: store, location: location, logger: logger)
                    .collect(view: makeBaseliner(location).catalog().view, policy: policy ?? configuration.baselinePolicy ?? .apple,
                             now: now ?? configuration.clock.now)
            }
        }
    }

    /// Removes the content from the cloud (Apple's `removeUbiquitousContent`): every peer's logs
    /// and receipts of this content, its baselines; writes a new content epoch so running peers
    /// notice; and empties this store. Files go, folders stay (see `removeFiles(under:in:keeping:)`).
    ///
    /// Another peer's logs and baselines that name a content epoch this peer does not know stay:
    /// they belong to a removal it has not heard of yet, which may be the later one and then
    /// wins. Deleted, its logs came back only from their authors' copies, and an author that
    /// had rebuilt its store since kept none (fuzz seed 400, 1,500 steps). Should this removal
    /// win instead, nobody applies them, and their authors delete them when they start over.
    public func removeUbiquitousContent() throws {
        try refuseUnlessWritable("remove the content")
        guard let location else { throw SyncError.signedOut }
        // Without the key of encrypted content it could delete but not write the new epoch.
        if case .locked = location.sealing.refresh() { throw location.sealing.lockedError }
        try syncLock.withLock { try removeContent(as: try contentRemovalPlan(location), in: location) }
        logger.notice(.setupAssistant, "removeUbiquitousContent", "removed the content \(location.contentName) from the cloud")
    }

    /// What a removal knows before it deletes anything: the contents it removes, and what it is
    /// (one generation more than the latest removal it knows of, after every removal those knew).
    package struct ContentRemovalPlan: Sendable {
        /// The content epochs whose files it deletes: the one this store is in, the one the
        /// epoch file names, and content never removed (`nil`).
        let known: Set<String?>
        let generation: Int64
        let history: KnowledgeVector
    }

    /// The first half of `removeUbiquitousContent()`: what it finds before it deletes. Tests
    /// step two removals through their halves to interleave them as two processes can.
    package func planContentRemoval() throws -> ContentRemovalPlan {
        guard let location else { throw SyncError.signedOut }
        return try syncLock.withLock { try contentRemovalPlan(location) }
    }

    /// The second half of `removeUbiquitousContent()`: deletes, writes the new epoch, empties the store.
    package func removeContent(as plan: ContentRemovalPlan) throws {
        try refuseUnlessWritable("remove the content")
        guard let location else { throw SyncError.signedOut }
        try syncLock.withLock { try removeContent(as: plan, in: location) }
    }

    /// One reading of the store's removal and the epoch file: the removal comes after exactly
    /// what it clears. Reading the file again after the deletions would count a removal written
    /// meanwhile as known, although its files were spared. The caller holds the sync lock.
    private func contentRemovalPlan(_ location: ContainerLocation) throws -> ContentRemovalPlan {
        let removals = [try store.contentRemoval(), ContentEpoch.current(location)].compactMap { $0 }
        var history = KnowledgeVector()
        for removal in removals { history.formMaximum(removal.history) }
        history[peerID] += 1
        return ContentRemovalPlan(known: Set([nil] + removals.map(\.epoch)), generation: (removals.map(\.generation).max() ?? 0) + 1,
                                  history: history)
    }

    /// The caller holds the sync lock.
    private func removeContent(as plan: ContentRemovalPlan, in location: ContainerLocation) throws {
        let unknown = { (path: String) in ContentEpoch.fileBelongsToUnknownEpoch(path, known: plan.known, in: location) }
        for peer in ContainerScan.peers(of: location) {
            // This peer's own files are all of contents it knows: it writes only in the one it is in.
            Self.removeFiles(under: location.contentDirectory(of: peer), in: location, keeping: peer == peerID ? { _ in false } : unknown)
        }
        Self.removeFiles(under: location.baselineVersionsDirectory, in: location, keeping: unknown)
        let date = store.now
        let epoch = ContentEpoch.epochID(remover: peerID, generation: plan.generation, date: date)
        let removal = try ContentEpoch.write(location, ContentEpoch.Removal(epoch: epoch, generation: plan.generation, date: date, history: plan.history))
        try store.resetToEmpty()
        try store.setContentEpoch(removal)
    }

    /// Deletes the files below `directory` and keeps the folders: file-sync tools and watchers
    /// (Syncthing's, `ubiq watch`) lose their watch on a folder deleted and made again, and
    /// would then notice new files only at their next full scan.
    /// A symbolic link on the way is never followed: what it leads to is not the cloud's.
    /// Files for which `keeping` is true stay.
    private static func removeFiles(under directory: String, in location: ContainerLocation, keeping: (String) -> Bool) {
        for entry in location.entries(in: directory) {
            let path = directory + "/" + entry.name
            if entry.isDirectory {
                removeFiles(under: path, in: location, keeping: keeping)
            } else if !ContainerLocation.isTemporary(entry.name), !keeping(path) {
                unlink(path)
            }
        }
    }

    /// What a sync finds of the content epoch.
    enum ContentEpochChange: Equatable {
        case none
        /// Another peer removed the content: this store starts over empty.
        case removed
        /// Another peer removed it at the same time as this store's own removal, and won: this
        /// store starts over in `winner` carrying what it holds (saved after its own removal).
        case removedConcurrently(winner: ContentRemoval)
    }

    /// Whether another peer removed the content since this store last looked. Only a removal
    /// writes an epoch: a store that knows none and holds nothing yet simply starts in the
    /// current one; a store that holds data of an epoch that is no longer current lost it.
    /// An epoch file that is missing or unreadable (late or damaged in transfer) is no removal.
    /// Of two removals the later wins: when the file holds an earlier one than this store's (a
    /// file-sync tool kept the other remover's file), this peer writes its own again.
    public func contentEpochChanged() throws -> Bool { try contentEpochChange() != .none }

    func contentEpochChange() throws -> ContentEpochChange {
        guard let location, let current = ContentEpoch.current(location) else { return .none }
        guard let known = try store.contentRemoval() else {
            if store.knowledge.entries.isEmpty {
                try store.setContentEpoch(current)
                return .none
            }
            return .removed
        }
        guard known.epoch != current.epoch else { return .none }
        if known.isLater(than: current) {
            logger.error(.setupAssistant, "contentRemoved", "the content epoch went back to an earlier removal (\(current.epoch)); writing the later one (\(known.epoch)) again")
            try ContentEpoch.write(location, known)
            return .none
        }
        return known.isConcurrent(with: current) ? .removedConcurrently(winner: current) : .removed
    }

    /// A new store starts in the content epoch it finds, so a removal made long before is not
    /// mistaken for one that wipes what the app is about to save.
    func recordContentEpochOfNewStore() throws {
        guard let location, store.knowledge.entries.isEmpty, try store.contentEpoch() == nil, let current = ContentEpoch.current(location) else { return }
        try store.setContentEpoch(current)
    }

    /// Starts over in `winner`, a removal made at the same time as the one this store is in:
    /// neither remover knew of the other, so neither cleared what was saved after the other.
    /// Everything this store holds came after its own removal; it is saved again, as new local
    /// transactions of the winner's content, in the same SQLite transaction that empties the
    /// store. This peer's own files of its content go, as after any removal. Returns how many
    /// objects were carried.
    func carryIntoConcurrentRemoval(_ winner: ContentRemoval) throws -> Int {
        guard let location else { return 0 }
        // What the other peers of this content wrote and this store has not imported yet comes along too.
        do { _ = try importAvailable() } catch { logger.log(.warning, .setupAssistant, "contentRemoved", "before carrying the content over: \(error)") }
        let carried = try syncLock.withLock {
            let carried = try store.startOver(in: winner, carrying: true, format: configuration.logFormat)
            for file in location.entries(in: location.logDirectory(of: peerID)) where file.isRegularFile {
                unlink(location.logPath(of: peerID, file.name))
            }
            return carried
        }
        logger.notice(.setupAssistant, "contentRemoved", "another peer removed the content at the same time as this one (\(winner.epoch)), and its removal won: the \(carried) object(s) saved here since were saved again into its content")
        return carried
    }

    /// Starts over on an empty store after another peer removed the content. This peer's own
    /// files left in the container belong to the removed content (saved before it noticed):
    /// they go too, so their numbers cannot be mistaken for the new content's.
    func resetForRemovedContent() throws {
        guard let location, let current = ContentEpoch.current(location) else { return }
        try syncLock.withLock {
            try store.resetToEmpty()
            try store.setContentEpoch(current)
            for file in location.entries(in: location.logDirectory(of: peerID)) where file.isRegularFile {
                unlink(location.logPath(of: peerID, file.name))
            }
        }
        logger.notice(.setupAssistant, "contentRemoved", "the content was removed by another peer: continuing on an empty store")
    }
}
