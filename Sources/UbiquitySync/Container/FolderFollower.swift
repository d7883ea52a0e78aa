import Foundation
import UbiquityBase

/// Tells one reader of container folders what changed in them since it last looked, so that
/// it reads again only that: the watches `LogFolderListings` keeps (inotify) say whether each
/// followed folder changed, and, for a folder the reader writes into itself (its own log
/// folder), which names came into it — most of what comes there is the reader's own, which it
/// can tell from what others wrote by name.
///
/// A folder is followed from the look that asked for it: whatever the reader reads after that
/// look, a later change is told at the next one. A missing folder (or a file or link in its
/// place) is followed through the folder above it, whose watch tells when one comes. What the
/// watches cannot tell (no inotify, out of watches, events lost, a folder moved or replaced)
/// is told as "anything may have changed"; and, as `LogFolderListings` uses a kept listing,
/// nothing is taken as unchanged for longer than `LogFolderListings.maximumAge` (a network
/// share's changes made on another machine raise no event here).
package final class FolderFollower: Sendable {
    /// What changed since the last look.
    package struct News: Sendable, Equatable {
        /// The names that came into the named folder (created, written, renamed into it);
        /// `nil` when some may have come untold: read all of it again.
        package let arrivals: [String]?
        /// The followed folders that changed; `nil` when any may have: read them all again.
        package let changed: Set<String>?

        /// Nothing changed in the followed folders.
        package var isQuiet: Bool { changed?.isEmpty == true }
    }

    /// What a follower knows between looks, kept under the listings' lock (`LogFolderListings.Kept`).
    struct State {
        /// The leaves asked for at the look they were followed from.
        var leaves: Set<String> = []
        /// For each leaf, the deepest folder of its path that is watched: the leaf, or for a
        /// missing one the folder above it, where it would come. (A folder above it that went
        /// or moved takes the leaf's watch with it, `LogFolderWatch`: the leaf then changed.)
        var followed: [String] = []
        /// The leaves found watched with every folder above them: they are watched again only
        /// once their watch went.
        var chained: Set<String> = []
        /// The count of the look they are followed from (`Kept.changes`), and when it was.
        var token: UInt64 = 0
        var readAt = -Double.infinity
        /// When the named folder's names began to be told.
        var namedAt = -Double.infinity
    }

    /// The ubiquity root: folders are followed from it down.
    package let root: String
    /// The folder whose names are told (`News.arrivals`); `nil` for none.
    package let named: String?

    package init(root: String, naming named: String? = nil) {
        self.root = root
        self.named = named
    }

    deinit {
        let id = ObjectIdentifier(self)
        LogFolderListings.kept.withLock { kept in
            kept.followers[id] = nil
            kept.arrivals[id] = nil
        }
    }

    /// What changed since the last look (everything, at the first), and, from this call on,
    /// follows `leaves` — the folders the caller reads, besides the named one — and the named
    /// folder. When the answer is not quiet, the caller reads all the leaves again after it;
    /// the names that came, it judges one by one (`nil`: it reads the named folder again).
    /// `force`: the caller reads everything again whatever changed (the answer is then `nil`
    /// for both). `now`: the clock, read before.
    package func look(following leaves: Set<String>, force: Bool = false, now: Double) -> News {
        let id = ObjectIdentifier(self)
        return LogFolderListings.kept.withLock { kept in
            kept.takeEvents()
            var state = kept.followers[id] ?? State()
            let fresh = !force && now - state.readAt < LogFolderListings.maximumAge && state.leaves.isSuperset(of: leaves)
            let changed = fresh ? Set(state.followed.filter { !kept.isSteady($0, since: state.token) }) : nil
            var arrivals: [String]?
            if let named {
                if !force, now - state.namedAt < LogFolderListings.maximumAge { arrivals = kept.arrivals[id]?.names }
                if arrivals == nil {
                    // Listed again by the caller: its names are told from here.
                    name(named, id: id, now: now, in: &kept, state: &state)
                } else {
                    kept.arrivals[id]?.names = []
                }
            }
            if changed != [] { follow(leaves, now: now, in: &kept, state: &state) }
            kept.followers[id] = state
            return News(arrivals: arrivals, changed: changed)
        }
    }

    /// Follows `leaves` from this look on; none when one cannot be (the next look then says
    /// anything may have changed).
    private func follow(_ leaves: Set<String>, now: Double, in kept: inout LogFolderListings.Kept, state: inout State) {
        var followed: Set<String> = []
        for leaf in leaves {
            if state.chained.contains(leaf), kept.watch.isWatched(leaf) {
                followed.insert(leaf)
                continue
            }
            guard let chain = kept.watchChain(leaf, below: root), let deepest = chain.last else {
                state = State(chained: state.chained, namedAt: state.namedAt)
                return
            }
            if deepest == leaf { state.chained.insert(leaf) } else { state.chained.remove(leaf) }
            followed.insert(deepest)
        }
        // The named folder's own changes are told by name.
        if let named { followed.remove(named) }
        state.followed = Array(followed)
        state.leaves = leaves
        state.token = kept.changes
        state.readAt = now
    }

    /// Starts telling the names that come into `folder`, when it and every folder above it
    /// can be watched; otherwise none are told (the next look says some may have come).
    private func name(_ folder: String, id: ObjectIdentifier, now: Double, in kept: inout LogFolderListings.Kept, state: inout State) {
        if let chain = kept.watchChain(folder, below: root), chain.last == folder, kept.watch.tellNames(in: folder) {
            kept.arrivals[id] = (folder, [])
            state.namedAt = now
        } else {
            kept.arrivals[id] = nil
            state.namedAt = -.infinity
        }
    }
}

extension LogFolderListings.Kept {
    /// Names kept at most for one follower between two looks: past them, it reads its folder again.
    static let arrivalsKept = 1024

    /// Whether `directory` is watched and no event for it was taken after the look counted `token`.
    func isSteady(_ directory: String, since token: UInt64) -> Bool {
        watch.isWatched(directory) && unchanged(directory, since: token)
    }

    /// Adds the names the watch told to the followers of their folders.
    mutating func record(_ named: [(folder: String, name: String?)]) {
        for follower in Array(arrivals.keys) {
            guard let folder = arrivals[follower]?.folder else { continue }
            for event in named where event.folder == folder {
                guard let name = event.name, let count = arrivals[follower]?.names?.count, count < Self.arrivalsKept else {
                    arrivals[follower]?.names = nil
                    break
                }
                arrivals[follower]?.names?.append(name)
            }
        }
    }

    /// Every follower's names: some may have come untold (events lost, watches reset).
    mutating func loseArrivals() {
        for follower in Array(arrivals.keys) { arrivals[follower]?.names = nil }
    }

    /// Watches `directory` and every folder above it up to `root`, from the root down, as far
    /// as they are folders: one that is not (missing, a file, a link) is followed by the watch
    /// of the folder above it, which tells when that changes. The folders watched; `nil` when
    /// a folder could not be watched (no inotify, out of watches) or lies outside `root`.
    mutating func watchChain(_ directory: String, below root: String) -> [String]? {
        guard let chain = directory == root ? [root] : LogFolderListings.folders(above: directory, below: root).map({ $0 + [directory] }) else { return nil }
        var watched: [String] = []
        for folder in chain {
            guard watch.watch(folder) else {
                guard folder != root, DirectoryEntry.at(folder)?.isDirectory != true else { return nil }
                return watched
            }
            // An event naming a folder above a log folder drops the listings below it.
            if folder != directory { ancestors.insert(folder) }
            watched.append(folder)
        }
        return watched
    }
}
