import Foundation
import UbiquityBase
import UbiquityCore

/// The baseline files one peer sees for its content and model: `baseline.zip` and every
/// conflict copy a file-sync engine made of it (two machines rolled before seeing each other's
/// baseline). Every one of them counts (Docs/Lifecycle.md, "The rule"): a store joins what it
/// needs of each, and what they hold together is this peer's view. Only a baseline of this
/// store's model and content epoch whose state matches its checksum counts; a damaged one is
/// set aside (quarantined until it changes) and reported, never trusted.
package struct BaselineCatalog {
    package struct Entry {
        package let name: String
        package let path: String
        package let isAtName: Bool
        package let metadata: BaselineMetadata
        package let file: DirectoryEntry

        package var candidate: BaselineCandidate {
            BaselineCandidate(name: name, isAtName: isAtName, knowledge: metadata.knowledge, contentID: metadata.storeChecksum,
                              resolves: Set(metadata.resolves))
        }
    }

    /// What lies under the name, for the replace rule of a roll.
    package enum NameState {
        case absent
        case usable(Entry)
        /// A readable baseline of another content epoch (removed content, or a removal this
        /// store has not heard of yet).
        case otherEpoch(BaselineMetadata)
        /// A file that cannot be used: damaged, or not a baseline at all.
        case unusable(String)
    }

    /// The usable baselines, the one under the name first.
    package private(set) var entries: [Entry] = []
    package private(set) var atName: NameState = .absent
    /// Baseline files set aside in this listing, with the reason (also quarantined).
    package private(set) var setAside: [(name: String, reason: String)] = []

    package var candidates: [BaselineCandidate] { entries.map(\.candidate) }
    /// What the usable baselines hold together.
    package var view: KnowledgeVector { BaselineProtocol.view(of: candidates) }
    package var entryAtName: Entry? { if case let .usable(entry) = atName { return entry } else { return nil } }

    /// Lists and checks the baseline folder of `location` for `store`. A baseline not checked
    /// before (by its file signature, remembered in `verifiedList`, a file of the device's) is
    /// inflated once and checked against its checksum, never written out; without
    /// `verifiedList`, every one is (doctor trusts no earlier check). With `readOnly` (a peer
    /// reading a device another process owns), the list is read but never written.
    package init(location: ContainerLocation, store: PersistentStore, verifiedList: String?, readOnly: Bool = false,
                 logger: UbiquityLogger) {
        let epoch = try? store.contentEpoch()
        let verified = verifiedList.map { Self.readVerified($0, caches: location.caches) } ?? []
        var stillVerified: Set<String> = []
        if case .locked = location.sealing.state {
            // Encrypted content this device holds no key for: nothing can be read, and nothing
            // unread is damaged (never quarantined).
            if DirectoryEntry.at(location.baselinePath) != nil { atName = .unusable(ContentSealing.noKeyMessage) }
            return
        }
        // Only the name and its conflict copies are baselines; each is looked at (`lstat`).
        for entry in ContainerScan.sharedFolder(.baselines, of: location) where entry.isBaselineFile {
            guard let file = entry.file else { continue }
            let isAtName = entry.kind == .baseline
            let relative = location.relativeBaselinePath(file.name)
            func reject(_ reason: String, quarantine: Bool) {
                if isAtName { atName = .unusable(reason) }
                setAside.append((file.name, reason))
                guard quarantine else { return }
                if (try? store.isQuarantined(path: relative, file: file)) != true {
                    logger.error(.baseline, "verify", "set aside \(relative): \(reason)")
                    try? store.recordQuarantine(path: relative, file: file, reason: reason)
                }
            }
            guard file.isRegularFile else {
                reject("\(file.kindIfNotRegular ?? "not a file"), not a baseline", quarantine: false)
                continue
            }
            if let record = try? store.quarantineRecord(path: relative), record.matches(file) {
                reject(record.reason, quarantine: false)
                continue
            }
            let path = entry.path
            let metadata: BaselineMetadata
            do {
                metadata = try BaselineArchive.readMetadata(path, sealing: location.sealing, caches: location.caches)
            } catch {
                reject(error.description, quarantine: true)
                continue
            }
            guard metadata.modelVersionHash == store.model.hash else {
                reject("it is for another model (\(metadata.modelVersionHash))", quarantine: true)
                continue
            }
            guard metadata.contentEpoch == epoch else {
                // Removed content's (or a removal not heard of yet): not this content, not damaged.
                if isAtName { atName = .otherEpoch(metadata) }
                logger.log(.verbose, .baseline, "metadata", "ignoring \(relative): it belongs to another content epoch")
                continue
            }
            let signature = "\(file.name)|\(file.signature)|\(metadata.storeChecksum)"
            if !verified.contains(signature) {
                // Inflated and hashed, never written out: nothing lands on the device.
                do {
                    try BaselineArchive.verifyStore(path, metadata: metadata, sealing: location.sealing, recentlyVerified: location.caches.verifiedStore)
                } catch {
                    reject(error.description, quarantine: true)
                    continue
                }
            }
            stillVerified.insert(signature)
            let entry = Entry(name: file.name, path: path, isAtName: isAtName, metadata: metadata, file: file)
            if isAtName { atName = .usable(entry) }
            entries.append(entry)
        }
        entries.sort { $0.isAtName && !$1.isAtName }
        if let verifiedList, !readOnly, stillVerified != verified { Self.writeVerified(stillVerified, to: verifiedList) }
    }

    /// Records the baseline this peer just rolled and renamed to `path` as verified: the roll
    /// took its checksum from the very bytes it zipped, so extracting it again at the next
    /// catalog would only check this peer's own write. A file swapped in meanwhile has another
    /// signature or checksum and is verified as any other.
    package static func recordRolled(_ path: String, storeChecksum: String, verifiedList: String, caches: SyncCaches) {
        guard let file = DirectoryEntry.at(path), file.isRegularFile else { return }
        var signatures = readVerified(verifiedList, caches: caches)
        guard signatures.insert("\(file.name)|\(file.signature)|\(storeChecksum)").inserted else { return }
        writeVerified(signatures, to: verifiedList)
    }

    // The signatures hold the file's change time and inode: device facts, kept in a file of the
    // device's rather than in the store (whose bytes a baseline is made from).
    // Every sync makes a catalog or three, and the list rarely changes: it is parsed again only
    // when its file changed (`SyncCaches.verifiedLists`).
    private static func readVerified(_ path: String, caches: SyncCaches) -> Set<String> {
        let before = DirectoryEntry.at(path)?.settledSignature
        if let before, let known = caches.verifiedLists.lookup(path, signature: before) { return known }
        guard let bytes = try? AtomicFile.read(path, limit: 1 << 20) else { return [] }
        let signatures = Set(String(decoding: bytes, as: UTF8.self).split(separator: "\n").map(String.init))
        if let before, DirectoryEntry.at(path)?.signature == before { caches.verifiedLists.store(path, signature: before, signatures) }
        return signatures
    }

    private static func writeVerified(_ signatures: Set<String>, to path: String) {
        try? AtomicFile.makeDirectory((path as NSString).deletingLastPathComponent)
        try? AtomicFile.write(Array(signatures.sorted().joined(separator: "\n").utf8), to: path)
    }
}
