import Foundation

// Baselines, garbage collection and content removal for one peer (DESIGN §5–§6).
extension UbiquityPeer {
    func makeBaseliner(_ location: ContainerLocation) -> Baseliner {
        Baseliner(store: store, location: location, scratchDirectory: localDirectory + "/container/staging", logger: logger)
    }

    /// The current baseline's metadata, or `nil` when there is none (or it is unreadable).
    public var baselineMetadata: BaselineMetadata? { location.flatMap { makeBaseliner($0).currentMetadata() } }

    /// Rolls a baseline now if this peer may (it has imported every visible log); with
    /// `force` regardless of the policy's thresholds.
    public func rollBaseline(force: Bool = false) throws -> BaselineDecision {
        guard let location else { throw SyncError.signedOut }
        return try syncLock.withLock {
            try makeBaseliner(location).rollIfNeeded(policy: configuration.baselinePolicy ?? .apple, force: force)
        }
    }

    /// Deletes this peer's own logs that the baseline covers and nobody needs any more.
    public func collectGarbage(policy: BaselinePolicy? = nil, now: Date = Date()) -> GarbageReport {
        guard let location else { return GarbageReport(note: "signed out: nothing in the cloud") }
        return syncLock.withLock {
            let baseliner = makeBaseliner(location)
            return GarbageCollector(store: store, location: location, logger: logger)
                .collect(baseline: baseliner.currentMetadata(), policy: policy ?? configuration.baselinePolicy ?? .apple, now: now)
        }
    }

    /// Removes the content from the cloud (Apple's `removeUbiquitousContent`): every peer's logs
    /// and receipts of this content, its baselines; writes a removal epoch so running peers
    /// notice; and empties this store. The epoch's floor is everything the content held as far
    /// as this peer can tell, so late copies of removed logs are never applied anywhere.
    public func removeUbiquitousContent() throws {
        guard let location else { throw SyncError.signedOut }
        try syncLock.withLock {
            let floor = removedContentFloor(location)
            for folder in DirectoryEntry.list(location.ubiquityRoot) where folder.isDirectory && CloudNames.isValidPeerID(folder.name) {
                Self.removeFiles(under: "\(location.ubiquityRoot)/\(folder.name)/\(location.contentName)")
            }
            Self.removeFiles(under: "\(location.ubiquityRoot)/.baseline/\(location.contentName)")
            let epoch = try ContentEpoch.writeRemoval(location, floor: floor, by: peerID)
            try store.startOver(knowledge: floor, removals: [epoch], current: epoch)
            try? Exporter(store: store, location: location, logger: logger).writeReceipt()
        }
        logger.log(.error, "PFUbiquitySetupAssistant", "removeUbiquitousContent", "removed the content \(location.contentName) from the cloud")
    }

    /// Deletes the files below `directory` and keeps the folders: file-sync tools and watchers
    /// (Syncthing's, `ubiq watch`) lose their watch on a folder deleted and made again, and
    /// would then notice new files only at their next full scan.
    private static func removeFiles(under directory: String) {
        for entry in DirectoryEntry.list(directory) {
            let path = directory + "/" + entry.name
            if entry.isDirectory { removeFiles(under: path) } else if !entry.name.hasSuffix(".nosync") { unlink(path) }
        }
    }

    /// The knowledge of everything the content holds: this store's, every log and receipt in
    /// the container, the baseline and earlier removals.
    private func removedContentFloor(_ location: ContainerLocation) -> KnowledgeVector {
        var floor = store.knowledge
        let scan = ContainerScan(location: location)
        for log in scan.logs where log.number > floor[log.peerID] { floor[log.peerID] = log.number }
        for peer in scan.peers {
            guard let bytes = try? AtomicFile.read(location.receiptPath(of: peer), limit: 1 << 20),
                  let receipt = try? Receipt(decoding: bytes), receipt.peerID == peer else { continue }
            floor.formMaximum(receipt.knowledge)
        }
        if let baseline = makeBaseliner(location).currentMetadata() { floor.formMaximum(baseline.knowledge) }
        floor.formMaximum(ContentEpoch.state(location).floor)
        return floor
    }

    /// Whether another peer removed the content since this store last looked. A store that
    /// never looked and holds nothing takes the removals' floor as its knowledge at once.
    public func contentEpochChanged() throws -> Bool {
        guard let location else { return false }
        let state = ContentEpoch.state(location)
        guard let honoured = try store.honouredRemovals() else {
            if state.removals.isEmpty || store.knowledge.entries.isEmpty {
                try store.startOver(knowledge: state.floor, removals: Set(state.removals.keys), current: state.current, emptying: false)
                return false
            }
            // It holds data from before a removal it never saw.
            return true
        }
        if let current = state.current, try store.contentEpoch() != current { try store.setContentEpoch(current) }
        return !Set(state.removals.keys).isSubset(of: honoured)
    }

    /// Starts over on an empty store after another peer removed the content: the knowledge
    /// becomes the removals' floor, so nothing of the removed content is applied again.
    func resetForRemovedContent() throws {
        guard let location else { return }
        let state = ContentEpoch.state(location)
        try syncLock.withLock {
            try store.startOver(knowledge: state.floor, removals: Set(state.removals.keys), current: state.current)
            // The old receipt vouches for logs this store no longer holds: garbage collection
            // elsewhere must not trust it.
            try? Exporter(store: store, location: location, logger: logger).writeReceipt()
        }
        logger.log(.error, "PFUbiquitySetupAssistant", "contentRemoved", "the content was removed by another peer: continuing on an empty store after \(state.floor)")
    }

    /// The first export of new content writes its creation epoch.
    func ensureContentEpoch(_ location: ContainerLocation) throws {
        if let current = ContentEpoch.state(location).current {
            if try store.contentEpoch() == nil { try store.setContentEpoch(current) }
            return
        }
        guard ContentEpoch.files(location).isEmpty else { return }   // only conflict copies or an unreadable file: leave them
        try store.setContentEpoch(try ContentEpoch.writeCreation(location))
    }
}

extension PersistentStore {
    /// The epoch of the main epoch file when this store last read it (for reports).
    func contentEpoch() throws -> String? { try locked { try meta("contentEpoch") } }

    func setContentEpoch(_ epoch: String) throws { try locked { try setMeta("contentEpoch", epoch) } }

    /// The removals this store has started over for; `nil` when it never looked.
    func honouredRemovals() throws -> Set<String>? {
        try locked { try meta("contentRemovals").map { Set($0.split(separator: ",").map(String.init)) } }
    }

    /// Empties the store (unless `emptying` is false) and sets its knowledge to `knowledge`, in
    /// one SQLite transaction with the removals it now honours.
    func startOver(knowledge: KnowledgeVector, removals: Set<String>, current: String?, emptying: Bool = true) throws {
        try locked {
            do {
                try database.transaction {
                    if emptying { try resetToEmpty() }
                    for (peer, number) in knowledge.entries { try advanceKnowledge(peer: peer, to: number) }
                    try setMeta("contentRemovals", removals.sorted().joined(separator: ","))
                    if let current { try setMeta("contentEpoch", current) }
                }
            } catch {
                // The transaction rolled back: so must the cached knowledge.
                knowledgeCache = try loadKnowledge()
                throw error
            }
        }
    }
}
