import Foundation
import Ubiquity

/// The emulated iCloud daemon of one device (Docs/Scenarios.md): it carries files between the device's
/// mirror (`<device>/Mobile Documents`) and the cloud, for the account the device is signed in
/// to, under a seeded `FaultPlan`.
///
/// It syncs as file-sync engines do, three ways: it remembers each file's signature on both
/// sides when they last agreed, so a change on one side travels to the other and a deletion
/// travels as a deletion. When both sides changed, a baseline keeps the one whose knowledge
/// dominates, a device's own files keep the mirror's copy, and everything else keeps the
/// cloud's. Time is the scenario's: `round(now:)` does what is due by then.
public final class TransferDaemon {
    public let name: String
    public let device: String
    public let cloud: EmulatedCloud
    public var plan: FaultPlan
    public private(set) var statistics = TransferStatistics()
    /// What happened, oldest first; the runner takes it for the timeline.
    var journal: [TransferRecord] = []

    private var random: SeededGenerator
    private var known: [String: (mirror: FileTree.Signature?, cloud: FileTree.Signature?)] = [:]
    private var queue: [String: Transfer] = [:]
    private var scannedGeneration = -1
    /// The account and mirror files of the last scan, and whether it saw the cloud (an offline
    /// scan takes the cloud as last seen): the next scan of the same account online looks only
    /// at what changed since.
    private var lastScan: (token: String, online: Bool)?
    private var lastLocal: [String: FileTree.Signature] = [:]
    /// The mirror's files kept current by inotify (`nil`: the mirror is walked at every scan).
    private let watch: MirrorWatch?
    /// The last scan walked the mirror (`lastLocal` holds what it found).
    private var walked = false
    /// Paths whose transfer or last-agreed pair changed outside a scan: the next scan looks again.
    private var touched: Set<String> = []
    /// The account synced at the last round (`nil`: signed out, nothing syncs).
    private var currentToken: String?
    private var mirrorChanged = true
    /// `nil` online; `.infinity` offline until told; else offline until then.
    private var offlineUntil: Double?
    /// The last upload attempt was refused over quota (cleared by the next upload that passes).
    private var quotaRefused = false

    /// `watchMirror`: keep the mirror's listing with inotify instead of walking it at every
    /// scan (the same files either way; `false` is the reference the tests compare with).
    public init(name: String, device: String, cloud: EmulatedCloud, plan: FaultPlan, seed: UInt64, watchMirror: Bool = true) {
        self.name = name
        self.device = device
        self.cloud = cloud
        self.plan = plan
        random = SeededGenerator(seed: seed)
        watch = watchMirror ? MirrorWatch(root: device + "/Mobile Documents") : nil
    }

    private var mirror: String { device + "/Mobile Documents" }

    // MARK: Control

    /// The device wrote into its mirror: look at it at the next round.
    public func noteMirrorChanged() { mirrorChanged = true }

    /// Takes the device offline until `online(at:)` (or, with `until`, until then).
    public func offline(at now: Double, until: Double = .infinity) {
        guard offlineUntil == nil else { offlineUntil = max(offlineUntil!, until); return }
        offlineUntil = until
        note(now, .offline, "", until.isFinite ? "offline until +\(SimulatedDuration.text(until))" : "offline")
    }

    public func online(at now: Double) {
        guard offlineUntil != nil else { return }
        offlineUntil = nil
        note(now, .online, "", "online")
    }

    public func isOffline(at now: Double) -> Bool { offlineUntil.map { now < $0 } ?? false }

    /// Transfers waiting, by direction.
    public var waiting: (uploads: Int, downloads: Int) {
        // Asked at every moment of a scenario (`isCaughtUp`): one plain pass, no arrays (a debug
        // build runs `map` and `filter` as generic code).
        var uploads = 0, downloads = 0
        for transfer in queue.values {
            switch transfer.kind {
            case .upload, .deleteInCloud: uploads += 1
            case .download, .deleteInMirror, .keepBoth: downloads += 1
            case .duplicate: break
            }
        }
        return (uploads, downloads)
    }

    /// Only uploads refused over quota are left: waiting changes nothing until the quota does.
    public var isStalledByQuota: Bool {
        quotaRefused && cloud.quotaBytes != nil && queue.values.allSatisfy { $0.kind == .upload || $0.kind == .duplicate }
    }

    /// The account's quota changed: refused uploads are worth trying again.
    public func quotaChanged() { quotaRefused = false }

    /// Whether anything is left to do once the device is online and under its quota.
    public var isIdle: Bool { queue.isEmpty && !mirrorChanged && scannedGeneration == cloud.generation }

    /// Whether the device has everything the cloud holds for it: online, looked since the
    /// cloud last changed, and no download waiting. Apps start their initial import only then,
    /// as iOS started it once the container's metadata was downloaded.
    public func isCaughtUp(at now: Double) -> Bool {
        !isOffline(at: now) && scannedGeneration == cloud.generation && waiting.downloads == 0
    }

    /// When this daemon next has something to do (`nil`: nothing until something changes).
    public func nextWake(after now: Double) -> Double? {
        if let until = offlineUntil { return until.isFinite ? until : nil }
        if mirrorChanged { return now }
        if currentToken == nil || (scannedGeneration == cloud.generation && queue.isEmpty) { return nil }
        var earliest = Double.infinity
        for transfer in queue.values where transfer.due < earliest { earliest = transfer.due }
        return max(now, earliest.isFinite ? earliest : now)
    }

    // MARK: A round

    /// Does what is due at `now`: notices changes on both sides and runs due transfers.
    /// Returns how many files it wrote into or deleted from the mirror (the device has news).
    @discardableResult
    public func round(now: Double) -> Int {
        if let until = offlineUntil {
            guard now >= until else {
                // Offline, the daemon still sees what the device saved: it waits for upload.
                if mirrorChanged, let token = (try? Device.load(from: device))?.identityToken {
                    if token != currentToken { stopTransfers(keeping: token, now: now) }
                    currentToken = token
                    scan(token: token, now: now, cloudUnseen: true)
                }
                return 0
            }
            online(at: now)
            mirrorChanged = true
        }
        if plan.offlineRate > 0, Double.random(in: 0..<1, using: &random) < plan.offlineRate {
            statistics.offlineWindows += 1
            offline(at: now, until: now + draw(plan.offlineFor))
            return 0
        }
        // The account is read again only after the device did something (a switch is a step).
        let token = mirrorChanged ? (try? Device.load(from: device))?.identityToken : currentToken
        if token != currentToken {
            stopTransfers(keeping: token, now: now)
            currentToken = token
            mirrorChanged = true
        }
        guard let token else {
            mirrorChanged = false
            return 0
        }
        if mirrorChanged || scannedGeneration != cloud.generation { scan(token: token, now: now) }
        var delivered = 0
        var due: [Transfer] = []
        for transfer in queue.values where transfer.due <= now { due.append(transfer) }
        due.sort { ($0.due, $0.key) < ($1.due, $1.key) }
        if plan.reorder { due.shuffle(using: &random) }
        for transfer in due { delivered += execute(transfer, token: token, now: now) }
        return delivered
    }

    /// Signed out or switched: the old account's transfers stop (they resume when the device
    /// returns to it, from a fresh look at both sides). One that had written part of a file
    /// removes that part, as for a source that went away: left behind, half a file would look
    /// like a change of its own when the device returns, and win over the whole one (seed 576
    /// of `scenario fuzz`: half a content-epoch file replaced everybody's whole one for good).
    private func stopTransfers(keeping token: String?, now: Double) {
        // The transfers dropped here are queued again by a look at every path.
        lastScan = nil
        for (key, transfer) in queue where token == nil || !transfer.path.hasPrefix(token! + "/") {
            queue[key] = nil
            guard transfer.partial else { continue }
            let toCloud = transfer.kind == .upload
            unlink((toCloud ? cloud.path : mirror) + "/" + transfer.path)
            known[transfer.path] = nil
            touched.insert(transfer.path)
            if toCloud { cloud.didChange(transfer.path) }
            note(now, toCloud ? .deleteInCloud : .deleteInMirror, transfer.path, "the account changed before the rest was sent: the part written is removed")
        }
    }

    /// Compares both sides with what was last in sync and queues a transfer for each difference.
    /// With `cloudUnseen` (offline) the cloud is taken to be as it was last seen.
    ///
    /// After an online scan of the same account it looks only at the paths that changed since
    /// (in the mirror listing, in the cloud's named changes, or by a transfer): every other
    /// path still needs what the last scan queued for it, so the queue, and the random draws
    /// that come with it, are the same as a look at every path would make.
    private func scan(token: String, now: Double, cloudUnseen: Bool = false) {
        var changed: Set<String>? = lastScan.map { $0.token == token && $0.online } == true && !cloudUnseen ? touched : nil
        mirrorChanged = false
        // Looked at every time: the app writes some files (receipts) without saying so. The
        // watch names the files that changed since the last scan; a walk compares with it.
        let local: [String: FileTree.Signature]
        if let watch, watch.refresh() {
            local = watch.files(under: token)
            let moved = watch.takeChanges()
            if walked { changed = nil } // the watch just began: it knows no last scan
            walked = false
            lastLocal = [:]
            if changed != nil { for path in moved where path.hasPrefix(token + "/") { changed!.insert(path) } }
        } else {
            local = FileTree.list(mirror, under: token).files
            if changed != nil {
                if !walked { changed = nil } // the watch stopped: nothing to compare with
                for (path, signature) in local where lastLocal[path] != signature { changed?.insert(path) }
                for path in lastLocal.keys where local[path] == nil { changed?.insert(path) }
            }
            walked = true
            lastLocal = local
        }
        let remote: [String: FileTree.Signature]
        if cloudUnseen {
            remote = known.compactMapValues(\.cloud).filter { $0.key.hasPrefix(token + "/") }
        } else {
            if changed != nil {
                if let paths = cloud.changedPaths(since: scannedGeneration, under: token) { changed!.formUnion(paths) } else { changed = nil }
            }
            scannedGeneration = cloud.generation
            remote = cloud.tree(of: token).files
        }
        lastScan = (token, !cloudUnseen)
        touched.removeAll()
        // Only paths a look at every path would meet: a transfer queued for a file gone from
        // both sides (and from memory) stays until it runs, as it always did.
        let paths = changed.map { $0.filter { local[$0] != nil || remote[$0] != nil || known[$0] != nil } }
            ?? Set(local.keys).union(remote.keys).union(known.keys.filter { $0.hasPrefix(token + "/") })
        for path in paths.sorted() {
            // A transfer that already wrote part of the file finishes what it started.
            if queue[path]?.partial == true { continue }
            guard let kind = action(for: path, mirror: local[path], cloud: remote[path]) else {
                queue[path] = nil
                continue
            }
            if queue[path]?.kind != kind { queue[path] = Transfer(path: path, kind: kind, due: now + draw(plan.delay)) }
        }
    }

    /// What `path` needs, given its signatures now (`nil` when both sides agree).
    private func action(for path: String, mirror local: FileTree.Signature?, cloud remote: FileTree.Signature?) -> Transfer.Kind? {
        let last = known[path]
        let mirrorMoved = local != last?.mirror, cloudMoved = remote != last?.cloud
        switch (mirrorMoved, cloudMoved) {
        case (false, false):
            return nil
        case (true, false):
            return local == nil ? .deleteInCloud : .upload
        case (false, true):
            return remote == nil ? .deleteInMirror : .download
        case (true, true):
            if local == nil && remote == nil { known[path] = nil; return nil }
            if let local, let remote, local.size == remote.size, read(mirror + "/" + path) == read(cloud.path + "/" + path) {
                known[path] = (local, remote)
                return nil
            }
            return resolveConflict(path, mirror: local, cloud: remote)
        }
    }

    /// Both sides changed since they last agreed.
    private func resolveConflict(_ path: String, mirror local: FileTree.Signature?, cloud remote: FileTree.Signature?) -> Transfer.Kind {
        if path.hasSuffix("/baseline.zip"), local != nil, remote != nil {
            // Keep the baseline that knows more (of two contents, the later removal's); an unreadable one loses.
            let mine = try? BaselineMetadata(archiveAt: mirror + "/" + path), theirs = try? BaselineMetadata(archiveAt: cloud.path + "/" + path)
            // Sealed (encrypted content): iCloud cannot look inside either, so it keeps both versions.
            if mine == nil, theirs == nil, SealedFile.isSealedFile(mirror + "/" + path), SealedFile.isSealedFile(cloud.path + "/" + path) { return .keepBoth }
            guard let mine else { return .download }
            guard let theirs else { return .upload }
            if mine.contentEpoch != theirs.contentEpoch {
                // Ordered as the epoch files are (below), not by when each was rolled: a device
                // still in an earlier content, back before its daemon had brought the later
                // removal, rolled after the current content's baseline and replaced it, after
                // peers had collected the logs only it held (fuzz seed 414, 1,500 steps). What
                // the earlier content held goes with its removal anyway.
                return Self.removal(of: mine).isLater(than: Self.removal(of: theirs)) ? .upload : .download
            }
            if mine.knowledge.dominates(theirs.knowledge) { return .upload }
            // Rolled concurrently, each holds what the other lacks: iCloud keeps both versions
            // (NSFileVersion's conflict versions); here the mirror's becomes a conflict copy.
            return theirs.knowledge.dominates(mine.knowledge) ? .download : .keepBoth
        }
        if Self.isContentEpoch(path), local != nil, remote != nil {
            // Two removals of one content (one made offline): keep the later, as every peer
            // orders them. Downloading over it lost a removal whose logs were already deleted,
            // and the older epoch it brought back then missed them (fuzz seed 304, 1,500 steps).
            // An unreadable (or sealed) one loses.
            guard let mine = Self.removal(at: mirror + "/" + path) else { return .download }
            guard let theirs = Self.removal(at: cloud.path + "/" + path) else { return .upload }
            return mine.isLater(than: theirs) ? .upload : .download
        }
        if isOwn(path) { return local == nil ? .deleteInCloud : .upload }
        return remote == nil ? .deleteInMirror : .download
    }

    /// Whether `path` is a content's epoch file (`…/.content/<ContentName>.plist`).
    private static func isContentEpoch(_ path: String) -> Bool {
        let parts = path.split(separator: "/")
        return parts.count >= 2 && parts[parts.count - 2] == ContainerLocation.contentEpochFolderName && path.hasSuffix(".plist")
            && SyncArtifact.classify(String(parts[parts.count - 1])) == nil
    }

    /// The removal in the epoch file at `path`, read as it lies (`nil` when unreadable or sealed).
    private static func removal(at path: String) -> ContentRemoval? {
        guard let data = FileManager.default.contents(atPath: path), case let .epoch(removal) = ContentEpoch.status(ofBytes: Array(data)) else { return nil }
        return removal
    }

    /// The removal a baseline's state belongs to (content never removed: before every removal).
    private static func removal(of baseline: BaselineMetadata) -> ContentRemoval {
        ContentRemoval(epoch: baseline.contentEpoch ?? "", generation: baseline.contentEpochGeneration, date: baseline.contentEpochDate)
    }

    /// Whether `path` lies in a folder of one of this device's peers (`<user>~<device UUID>…`).
    private func isOwn(_ path: String) -> Bool {
        guard let device = try? Device.load(from: device) else { return false }
        let prefix = device.peerID()
        return path.split(separator: "/").contains { $0.hasPrefix(prefix) }
    }

    // MARK: Transfers

    private func execute(_ queued: Transfer, token: String, now: Double) -> Int {
        var transfer = queued
        let local = mirror + "/" + transfer.path, remote = cloud.path + "/" + transfer.path
        touched.insert(transfer.path)
        if transfer.kind == .duplicate { return deliverDuplicate(transfer, now: now) }
        // The situation may have changed since the transfer was queued: do what it needs now.
        // Both sides as looked at now (not for a transfer that finishes what it started).
        var seen: (mirror: FileTree.Signature?, cloud: FileTree.Signature?)?
        if !transfer.partial {
            seen = (FileTree.signature(local), FileTree.signature(remote))
            guard let kind = action(for: transfer.path, mirror: seen!.mirror, cloud: seen!.cloud) else {
                queue[transfer.path] = nil
                return 0
            }
            transfer.kind = kind
        }
        transfer.attempts += 1
        if Double.random(in: 0..<1, using: &random) < plan.dropRate {
            statistics.drops += 1
            retry(transfer, now: now, "dropped, retried later")
            return 0
        }
        switch transfer.kind {
        case .upload, .download:
            return copyAcross(transfer, seen: seen, token: token, now: now)
        case .keepBoth:
            return keepBoth(transfer, now: now)
        case .deleteInCloud, .deleteInMirror:
            let inCloud = transfer.kind == .deleteInCloud
            unlink(inCloud ? remote : local)
            known[transfer.path] = nil
            queue[transfer.path] = nil
            if inCloud { cloud.didChange(transfer.path) }
            statistics.deletions += 1
            note(now, inCloud ? .deleteInCloud : .deleteInMirror, transfer.path, "deleted")
            return inCloud ? 0 : 1
        case .duplicate:
            return 0
        }
    }

    /// Copies a file up or down, or fails on purpose as the fault plan draws it (a drop was
    /// drawn before): over quota, lost, truncated, then perhaps delivered twice. `seen`: both
    /// sides as looked at before (`nil` for a transfer finishing what it started). Returns the
    /// files changed in the mirror.
    private func copyAcross(_ queued: Transfer, seen: (mirror: FileTree.Signature?, cloud: FileTree.Signature?)?, token: String, now: Double) -> Int {
        var transfer = queued
        let local = mirror + "/" + transfer.path, remote = cloud.path + "/" + transfer.path
        let toCloud = transfer.kind == .upload
        guard let bytes = read(toCloud ? local : remote) else {
            queue[transfer.path] = nil
            if transfer.partial {
                // The source went away before the rest arrived: the part written goes too,
                // as a daemon drops a download it cannot finish (else it would lie there,
                // known to nobody, for good).
                unlink(toCloud ? remote : local)
                known[transfer.path] = nil
                if toCloud { cloud.didChange(transfer.path) }
                note(now, toCloud ? .deleteInCloud : .deleteInMirror, transfer.path, "the rest never came: the part written is removed")
                return toCloud ? 0 : 1
            }
            mirrorChanged = true   // the source went away: the next scan sees a deletion
            return 0
        }
        if toCloud, let quota = cloud.quotaBytes,
           cloud.usage(of: token) - (FileTree.signature(remote)?.size ?? 0) + Int64(bytes.count) > quota {
            statistics.quotaRefusals += 1
            quotaRefused = true
            retry(transfer, now: now, "refused: the account is over its quota of \(quota) bytes")
            return 0
        }
        if !toCloud, Double.random(in: 0..<1, using: &random) < plan.loseRate {
            // Sabotage: the daemon believes it delivered the file and never writes it.
            statistics.lost += 1
            known[transfer.path] = (FileTree.signature(local), FileTree.signature(remote))
            queue[transfer.path] = nil
            note(now, .lost, transfer.path, "LOST: recorded as downloaded, never written")
            return 0
        }
        if !transfer.partial, bytes.count > 1, Double.random(in: 0..<1, using: &random) < plan.truncateRate {
            let cut = Int.random(in: 1..<bytes.count, using: &random)
            guard write(Array(bytes[..<cut]), to: toCloud ? remote : local, like: toCloud ? local : remote) else { retry(transfer, now: now, "could not write"); return 0 }
            if toCloud { cloud.didChange(transfer.path) }
            statistics.truncations += 1
            transfer.partial = true
            retry(transfer, now: now, "truncated after \(cut) of \(bytes.count) bytes; the rest follows")
            return toCloud ? 0 : 1
        }
        // The source as looked at before it was read (a change after that is seen by the next scan).
        let source = seen.map { toCloud ? $0.mirror : $0.cloud } ?? FileTree.signature(toCloud ? local : remote)
        guard write(bytes, to: toCloud ? remote : local, modified: source?.modified) else { retry(transfer, now: now, "could not write"); return 0 }
        let written = FileTree.signature(toCloud ? remote : local)
        known[transfer.path] = toCloud ? (source, written) : (written, source)
        queue[transfer.path] = nil
        if toCloud {
            cloud.didChange(transfer.path, signature: .some(written))
            quotaRefused = false
            statistics.uploads += 1
            statistics.bytesUp += Int64(bytes.count)
        } else {
            statistics.downloads += 1
            statistics.bytesDown += Int64(bytes.count)
        }
        note(now, toCloud ? .upload : .download, transfer.path, "\(bytes.count) bytes\(transfer.attempts > 1 ? " (attempt \(transfer.attempts))" : "")")
        if Double.random(in: 0..<1, using: &random) < plan.duplicateRate {
            let copy = Int.random(in: 0..<4, using: &random) == 0
            queue["dup:" + transfer.path] = Transfer(path: transfer.path, kind: .duplicate, due: now + draw(plan.delay) + draw(plan.retryAfter),
                                                     duplicate: .init(bytes: bytes, toCloud: toCloud, asCopy: copy))
        }
        return toCloud ? 0 : 1
    }

    /// Moves the mirror's version of `transfer.path` aside as an iCloud conflict copy
    /// (`name (iCloud conflict DEVICE TIME).ext`, which `SyncArtifact` knows) and puts the
    /// cloud's in its place in the same step, as iCloud does with a conflict's winner (a device
    /// that found the name empty in between would roll yet another baseline); the copy uploads
    /// at the next round.
    private func keepBoth(_ transfer: Transfer, now: Double) -> Int {
        let local = mirror + "/" + transfer.path, remote = cloud.path + "/" + transfer.path
        let name = (transfer.path as NSString).lastPathComponent
        let dot = name.lastIndex(of: ".") ?? name.endIndex
        let copy = (transfer.path as NSString).deletingLastPathComponent + "/" + name[..<dot]
            + " (iCloud conflict \(self.name) \(Int(now)))" + name[dot...]
        guard let bytes = read(remote), rename(local, mirror + "/" + copy) == 0 else {
            retry(transfer, now: now, "could not set the mirror's version aside")
            return 0
        }
        guard write(bytes, to: local, like: remote) else {
            // The copy keeps the mirror's version; the name is fetched like any new file.
            known[transfer.path] = nil
            queue[transfer.path] = nil
            mirrorChanged = true
            return 1
        }
        known[transfer.path] = (FileTree.signature(local), FileTree.signature(remote))
        queue[transfer.path] = nil
        mirrorChanged = true
        statistics.conflictCopies += 1
        statistics.downloads += 1
        statistics.bytesDown += Int64(bytes.count)
        note(now, .conflictCopy, copy, "both versions kept: the mirror's set aside as a conflict copy, the cloud's downloaded in its place")
        return 1
    }

    /// Delivers a file a second time: the same bytes again (only if the file has not changed
    /// since), or an iCloud-style copy `name 2.ext` beside it.
    private func deliverDuplicate(_ transfer: Transfer, now: Double) -> Int {
        queue["dup:" + transfer.path] = nil
        guard let duplicate = transfer.duplicate, !isOffline(at: now) else { return 0 }
        let root = duplicate.toCloud ? cloud.path : mirror
        var path = transfer.path
        if duplicate.asCopy {
            let name = (path as NSString).lastPathComponent
            let dot = name.firstIndex(of: ".") ?? name.endIndex
            path = (path as NSString).deletingLastPathComponent + "/" + name[..<dot] + " 2" + name[dot...]
        } else {
            guard read(root + "/" + path) == duplicate.bytes else { return 0 }
        }
        guard write(duplicate.bytes, to: root + "/" + path, like: nil) else { return 0 }
        if !duplicate.asCopy, let last = known[path] {
            // The same content again: keep the pair in sync so it does not bounce back.
            let fresh = FileTree.signature(root + "/" + path)
            known[path] = duplicate.toCloud ? (last.mirror, fresh) : (fresh, last.cloud)
        }
        touched.insert(path)
        if duplicate.toCloud { cloud.didChange(path) } else { mirrorChanged = true }
        statistics.duplicates += 1
        note(now, .duplicate, path, duplicate.asCopy ? "delivered again as a copy" : "delivered again")
        return duplicate.toCloud ? 0 : 1
    }

    private func retry(_ transfer: Transfer, now: Double, _ why: String) {
        var transfer = transfer
        transfer.due = now + draw(plan.retryAfter)
        queue[transfer.key] = transfer
        note(now, .fault, transfer.path, why)
    }

    // MARK: Status

    /// The state of every file of the device's account, as `ubiq status` shows them.
    public func status(now: Double) -> TransferStatus {
        var files: [String: FileState] = [:]
        if let token = (try? Device.load(from: device))?.identityToken {
            let local = FileTree.list(mirror, under: token), remote = FileTree.list(cloud.path, under: token)
            for path in Set(local.files.keys).union(remote.files.keys) {
                switch queue[path]?.kind {
                case .upload?, .deleteInCloud?: files[path] = .dataNotPresent
                case .download?, .deleteInMirror?: files[path] = .storedInCloud
                default:
                    files[path] = local.files[path] == nil ? .storedInCloud : remote.files[path] == nil ? .dataNotPresent : .current
                }
            }
            for path in local.excluded { files[path] = .excluded }
        }
        let waiting = self.waiting
        return TransferStatus(files: files, offline: isOffline(at: now), quotaExceeded: quotaRefused,
                              waitingUploads: waiting.uploads, waitingDownloads: waiting.downloads,
                              date: SimulatedClock.epoch + now)
    }

    // MARK: Helpers

    private func draw(_ range: ClosedRange<Double>) -> Double {
        range.lowerBound == range.upperBound ? range.lowerBound : Double.random(in: range, using: &random)
    }

    private func read(_ path: String) -> [UInt8]? { try? AtomicFile.read(path, limit: 1 << 30) }

    /// `path`'s folder as `NSString.deletingLastPathComponent` gives it, cut by bytes when it is a plain path.
    static func folder(of path: String) -> String { PlainPath.folder(of: path) }

    /// Writes atomically, keeping the modification time of `source` as file-sync tools do;
    /// makes the file's folder only when the write finds it missing (most are there).
    private func write(_ bytes: [UInt8], to path: String, like source: String?) -> Bool {
        write(bytes, to: path, modified: source.flatMap(FileTree.signature)?.modified)
    }

    /// `modified`: the modification time to give the file (the source's), `nil` for now.
    private func write(_ bytes: [UInt8], to path: String, modified: Double?) -> Bool {
        if (try? AtomicFile.write(bytes, to: path, modificationTime: modified)) != nil { return true }
        do {
            try AtomicFile.makeDirectory(Self.folder(of: path))
            try AtomicFile.write(bytes, to: path, modificationTime: modified)
            return true
        } catch {
            return false
        }
    }

    private func note(_ time: Double, _ kind: TransferRecord.Kind, _ path: String, _ detail: String) {
        journal.append(TransferRecord(time: time, device: name, kind: kind, path: path, detail: detail))
    }
}

/// One transfer waiting in a daemon's queue.
struct Transfer {
    enum Kind: String {
        case upload, download, deleteInCloud, deleteInMirror, duplicate
        /// Two versions neither of which may be lost (concurrent baselines): the mirror's is
        /// set aside under a conflict name, then the cloud's is downloaded.
        case keepBoth
    }

    struct Duplicate {
        let bytes: [UInt8]
        let toCloud: Bool
        let asCopy: Bool
    }

    let path: String
    var kind: Kind
    var due: Double
    var attempts = 0
    /// Part of the file was written; the rest follows on the next attempt.
    var partial = false
    var duplicate: Duplicate?

    init(path: String, kind: Kind, due: Double, duplicate: Duplicate? = nil) {
        self.path = path
        self.kind = kind
        self.due = due
        self.duplicate = duplicate
    }

    var key: String { kind == .duplicate ? "dup:" + path : path }
}

/// One thing a daemon did, for the report's timeline.
public struct TransferRecord: Sendable {
    public enum Kind: String, Sendable {
        case upload, download, deleteInCloud, deleteInMirror, duplicate, fault, lost, offline, online
        /// The faults a daemon or engine is set to inject from now on (its plan), not one that happened.
        case faultPlan
        /// A file-sync engine set one of two versions of a path aside under a conflict name.
        case conflictCopy
    }

    public let time: Double
    public let device: String
    public let kind: Kind
    public let path: String
    public let detail: String
    /// For `faultPlan`: the plan set, typed (the detail says it in words).
    public var plan: FaultPlan? = nil

    /// The record of `plan` set on `device`'s lane (a device's daemon, or a machine's engine).
    static func faultPlan(_ plan: FaultPlan, time: Double, device: String) -> TransferRecord {
        TransferRecord(time: time, device: device, kind: .faultPlan, path: "", detail: "faults: \(plan.summary)", plan: plan)
    }
}
