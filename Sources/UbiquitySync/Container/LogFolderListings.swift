import Foundation
import Synchronization
import UbiquityBase

/// Classified listings of peers' log folders, kept across syncs: a sync lists every peer's log
/// folder, and most of them have not changed since the last one. A listing is reused only while
/// the folder's `lstat` (inode, size, modification and change times, which any entry added,
/// removed or renamed in it changes) is the one it was made under, and is kept only when the
/// folder's last change lay over `DirectoryEntry.settlingTime` in the past when it was looked
/// at: the kernel stamps a change with a clock that may lag by one tick, so any change after
/// that look gets a later change time (`DirectoryEntry.settledSignature`, for files) — or when
/// the folder was watched (`LogFolderWatch`, inotify) before it was listed: then an event tells
/// any later change, and a listing is dropped as soon as one names its folder. A folder that
/// changes often (syncs right after a peer's daemon delivered) is listed again only when it did
/// change.
///
/// A listing made under watches of its folder and of every folder above it up to the ubiquity
/// root is used without a look at the folder at all (`Listing.trusted`): any folder on the way
/// replaced, moved or made a link needs a name to come or go in a folder above it, and an event
/// then drops every listing below. So a sync lists the folders nobody wrote to since the last
/// one without a system call but the look at the events.
///
/// A kept listing is also used for at most `maximumAge` seconds: a folder's times are only as
/// fine as its file system keeps them (FAT's two seconds) and, on a network share, come from
/// another machine's clock, so a name added in the same tick as the kept look could leave the
/// signature as it was. Listing again after `maximumAge` bounds how long such a name can hide.
package enum LogFolderListings {
    /// Folders kept at most (all are dropped past it: the cache only saves work).
    static let capacity = 4096
    /// Seconds a kept listing is used at most before the folder is listed again.
    package static let maximumAge = 1.0

    fileprivate struct Listing {
        let signature: Signature
        /// The entries as listed, their files asked of one `OpenFolder` of the folder's inode:
        /// kept with the listing, so a sync that uses it neither copies the entries nor opens
        /// the folder again.
        let entries: [ContainerEntry]
        /// When it was listed (the clock read before the folder's `lstat`).
        let listedAt: Double
        /// A value made from `entries` by a caller (`derived`), with the key it was made for.
        var derived: (key: String, value: any Sendable)?
        /// The metadata of its files as asked, when it was made under a watch that no event
        /// broke: invalidated when the listing goes (`Kept.drop`).
        let memo: FolderMetadataMemo?
        /// Made under watches of its folder and every folder above it, up to the root, set
        /// before its confinement was checked: used with no look at the folder.
        let trusted: Bool
    }

    /// The kept listings and the watch that tells when one no longer holds; and what each
    /// `FolderFollower` follows, beside the watch that tells it.
    struct Kept {
        fileprivate var listings: [String: Listing] = [:]
        var watch = LogFolderWatch()
        /// Looks at the events that found some: a listing's watch is told by this count
        /// before its folder is read, and the listing is kept only when no look since took an
        /// event for that folder (maybe another thread's look, which finds no listing to drop).
        var changes: UInt64 = 0
        /// The count of the last look that took an event naming each folder.
        var changedAt: [String: UInt64] = [:]
        /// The count of the last look after which any folder may have changed unseen (events
        /// lost, watches reset).
        var everythingAt: UInt64 = 0
        /// Folders watched because log folders lie below them: an event naming one drops
        /// every listing below it.
        var ancestors: Set<String> = []
        /// The names that came into each followed folder since its follower last took them
        /// (`FolderFollower`), by follower: `nil` once some may have come untold.
        var arrivals: [ObjectIdentifier: (folder: String, names: [String]?)] = [:]
        /// What each follower follows (`FolderFollower.look`).
        var followers: [ObjectIdentifier: FolderFollower.State] = [:]

        /// Whether no event for `directory` was taken after the look counted `token`.
        func unchanged(_ directory: String, since token: UInt64) -> Bool {
            everythingAt <= token && (changedAt[directory] ?? 0) <= token
        }

        /// Drops the listings of folders the events since the last look name.
        mutating func takeEvents() {
            switch watch.takeChanges() {
            case let .folders(changed, named):
                guard !changed.isEmpty else { return }
                if !named.isEmpty { record(named) }
                changes &+= 1
                for directory in changed {
                    drop(directory)
                    changedAt[directory] = changes
                    if ancestors.contains(directory) { dropAll(below: directory) }
                }
                // Bounded like the listings: forgetting counts as if everything changed.
                if changedAt.count > capacity { forgetAll() }
            case .everything:
                changes &+= 1
                dropAll()
                forgetAll()
                loseArrivals()
            }
        }

        /// Keeps `listing` for `directory`, in place of the one kept before.
        fileprivate mutating func keep(_ listing: Listing, for directory: String) {
            listings.updateValue(listing, forKey: directory)?.memo?.invalidate()
        }

        /// Drops the listing of `directory` and the metadata kept with it.
        mutating func drop(_ directory: String) {
            listings.removeValue(forKey: directory)?.memo?.invalidate()
        }

        mutating func dropAll() {
            for listing in listings.values { listing.memo?.invalidate() }
            listings.removeAll()
        }

        /// Drops the listings of folders below `ancestor` (seldom: a peer or model folder came or went).
        mutating func dropAll(below ancestor: String) {
            let prefix = ancestor + "/"
            for directory in listings.keys where directory.hasPrefix(prefix) { drop(directory) }
        }

        /// Watches `directory` and the folders above it up to `root`; the count of the look
        /// before, and whether every folder above is watched (`nil` when the folder is not).
        mutating func watch(_ directory: String, below root: String) -> (token: UInt64, above: [String]?)? {
            let above = LogFolderListings.folders(above: directory, below: root)
            var allAbove = above != nil
            for folder in above ?? [] {
                if watch.watch(folder) { ancestors.insert(folder) } else { allAbove = false }
            }
            guard watch.watch(directory) else { return nil }
            return (changes, allAbove ? above : nil)
        }

        /// From now on, a listing whose watch was told an earlier count is kept only if settled.
        mutating func forgetAll() {
            changedAt.removeAll()
            everythingAt = changes
        }

        /// Drops every listing and watch (the cache is full).
        mutating func reset() {
            dropAll()
            ancestors.removeAll()
            watch.reset()
            loseArrivals()
            changes &+= 1
            forgetAll()
        }
    }

    fileprivate struct Signature: Equatable {
        let device: UInt64, inode: UInt64, size: Int64, links: UInt64
        let modified: Int, modifiedNanoseconds: Int, changed: Int, changedNanoseconds: Int

        init(_ info: stat) {
            device = UInt64(info.st_dev)
            inode = UInt64(info.st_ino)
            size = Int64(info.st_size)
            links = UInt64(info.st_nlink)
            modified = info.st_mtim.tv_sec
            modifiedNanoseconds = info.st_mtim.tv_nsec
            changed = info.st_ctim.tv_sec
            changedNanoseconds = info.st_ctim.tv_nsec
        }

        /// Whether the last change lies over the settling time before `now`.
        func settled(before now: Double) -> Bool {
            Double(changed) + Double(changedNanoseconds) / 1e9 < now - DirectoryEntry.settlingTime
        }
    }

    static let kept = Mutex(Kept())

    /// Whether a listing of `directory` is kept (for tests).
    package static func isKept(_ directory: String) -> Bool {
        kept.withLock {
            $0.takeEvents()
            return $0.listings[directory] != nil
        }
    }

    /// When the kept listing of `directory` was made, if one is kept (for tests).
    package static func keptAt(_ directory: String) -> Double? { kept.withLock { $0.listings[directory]?.listedAt } }

    /// Whether the kept listing of `directory` would be used at `now` (for tests): not older than `maximumAge`.
    package static func isUsable(_ directory: String, at now: Double) -> Bool {
        kept.withLock { $0.listings[directory].map { now - $0.listedAt < maximumAge } ?? false }
    }

    /// Whether `directory` is watched for changes (for tests).
    package static func isWatched(_ directory: String) -> Bool { kept.withLock { $0.watch.isWatched(directory) } }

    /// What `make` makes of `entries`, the listing of `directory` this cache handed out, kept
    /// with that listing while it is kept (for `key`, and `T`: one value a folder): a sync
    /// derives the same things (the logs, their numbers) from every peer's listing, and most
    /// listings are the very array of the sync before. Only that array (the same storage,
    /// which the kept listing keeps alive, so no other array can take it) is answered from
    /// here, so the value is the one `make` would make now.
    package static func derived<T: Sendable>(from entries: [ContainerEntry], of directory: String, key: String, _ make: () -> T) -> T {
        func same(_ a: [ContainerEntry], _ b: [ContainerEntry]) -> Bool {
            !a.isEmpty && a.count == b.count && a.withUnsafeBufferPointer { a in b.withUnsafeBufferPointer { a.baseAddress == $0.baseAddress } }
        }
        let known = kept.withLock { kept -> T? in
            guard let listing = kept.listings[directory], same(listing.entries, entries), listing.derived?.key == key else { return nil }
            return listing.derived?.value as? T
        }
        if let known { return known }
        let value = make()
        kept.withLock { kept in
            guard kept.listings[directory].map({ same($0.entries, entries) }) == true else { return }
            kept.listings[directory]!.derived = (key, value)
        }
        return value
    }

    /// `ContainerEntry.list(directory, as: .logs, of: location)`: the entries of the log folder
    /// `directory`, from the kept listing when the folder has not changed since.
    /// `root`: the ubiquity root opened by the caller, for the confinement check.
    static func list(_ directory: String, of location: ContainerLocation, root: ContainerLocation.OpenedRoot? = nil) -> [ContainerEntry] {
        // Read before the folder's `lstat`: a change after that look gets a change time after it.
        list(directory, of: location, now: Date().timeIntervalSince1970, root: root)
    }

    /// `list(_:of:root:)` with the clock read by the caller, before anything else.
    package static func list(_ directory: String, of location: ContainerLocation, now: Double, root: ContainerLocation.OpenedRoot? = nil) -> [ContainerEntry] {
        // The events first: a listing whose folder they name is gone before it could be used.
        // Watched before the folder is looked at: a change after this point is told by an event.
        let (trusted, watched) = kept.withLock { kept -> ([ContainerEntry]?, (token: UInt64, above: [String]?)?) in
            kept.takeEvents()
            if let listing = kept.listings[directory], listing.trusted, now - listing.listedAt < maximumAge { return (listing.entries, nil) }
            return (nil, kept.watch(directory, below: location.ubiquityRoot))
        }
        if let trusted { return trusted }
        let confinement = location.confinement(of: directory, root: root)
        guard confinement.isConfined else { return [] }
        guard let folder = confinement.folder else { return ContainerEntry.listed(directory, as: .logs, of: location) }
        let signature = Signature(folder)
        let listing = kept.withLock { kept -> Listing? in
            kept.takeEvents()
            guard let listing = kept.listings[directory], listing.signature == signature, now - listing.listedAt < maximumAge else { return nil }
            return listing
        }
        if let listing { return listing.entries }
        // Under a watch, the files' metadata is kept too, until an event says otherwise.
        let memo = watched.map { _ in FolderMetadataMemo { kept.withLock { $0.takeEvents() } } }
        let opened = OpenFolder(directory, identity: (signature.device, signature.inode), memo: memo)
        let entries = ContainerEntry.listed(directory, as: .logs, of: location, opened: opened)
        let settled = signature.settled(before: now)
        kept.withLock { kept in
            kept.takeEvents()
            // Under the watch only when no event for this folder came in since it was checked.
            var clean = watched.map { kept.unchanged(directory, since: $0.token) } == true
            guard settled || clean else {
                memo?.invalidate()
                kept.drop(directory)
                return
            }
            if kept.listings.count >= capacity {
                kept.reset()
                // This folder's watch went with the others: only a settled listing may stay.
                clean = false
            }
            if !clean { memo?.invalidate() }
            guard settled || clean else { return }
            let trusted = clean && watched?.above.map { $0.allSatisfy { kept.unchanged($0, since: watched!.token) } } == true
            kept.keep(Listing(signature: signature, entries: entries, listedAt: now, memo: clean ? memo : nil, trusted: trusted), for: directory)
        }
        return entries
    }

    /// The folders above `directory` from `root` down (`root` first), when it lies below `root`.
    package static func folders(above directory: String, below root: String) -> [String]? {
        var directory = directory, root = root
        // A pointer loop over the path's bytes: `split` took most of a listing's time.
        return directory.withUTF8 { path in
            root.withUTF8 { root -> [String]? in
                let slash = UInt8(ascii: "/"), count = path.count
                guard count > root.count + 1, path[root.count] == slash, root.isEmpty || memcmp(path.baseAddress!, root.baseAddress!, root.count) == 0 else { return nil }
                var folders = [String(decoding: root, as: UTF8.self)], index = root.count + 1
                while index < count {
                    if path[index] == slash && path[index - 1] != slash { folders.append(String(decoding: UnsafeBufferPointer(rebasing: path[..<index]), as: UTF8.self)) }
                    index += 1
                }
                return folders
            }
        }
    }

    /// Whether the listing of `directory` is used with no look at the folder (for tests).
    package static func isTrusted(_ directory: String) -> Bool {
        kept.withLock {
            $0.takeEvents()
            return $0.listings[directory]?.trusted == true
        }
    }
}
