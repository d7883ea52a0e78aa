import Foundation
import Ubiquity

/// The cloud as the emulated daemons share it: its directory, the account quota, and a
/// generation number that moves on every change, so each daemon knows when to look again.
///
/// The daemons say which file they changed (`didChange(_:)`): the listings stay current
/// without walking the cloud again, and a daemon asks which paths changed since it last
/// looked (`changedPaths(since:under:)`) instead of comparing every file. A change nobody
/// names (`didChange()`: a direct device, damage) makes everything be listed again.
public final class EmulatedCloud {
    public let path: String
    /// Bytes one account may hold (`nil`: no limit). Uploads that would pass it are refused
    /// and retried later; the device keeps working and its uploads wait.
    public var quotaBytes: Int64?
    private(set) var generation = 0
    /// One listing per account and generation, shared by every daemon and check.
    private var trees: [String: (generation: Int, tree: FileTree)] = [:]
    /// The paths the daemons changed, each with the generation its change made, oldest first.
    private var changes: [(generation: Int, path: String)] = []
    /// Changes up to this generation are not (or no longer) in `changes`.
    private var unlistedUpTo = 0
    /// How many named changes are kept for daemons that looked long ago.
    static let changesKept = 20_000

    public init(path: String) { self.path = path }

    /// Something changed that nobody named: every listing is made again.
    func didChange() {
        generation += 1
        unlistedUpTo = generation
        changes.removeAll()
    }

    /// A daemon wrote or removed the file at `relative` (`<account>/…`); `signature`: the
    /// file's as the daemon just looked at it, when it did.
    func didChange(_ relative: String, signature: FileTree.Signature?? = nil) {
        generation += 1
        changes.append((generation, relative))
        if changes.count > Self.changesKept {
            let dropped = changes.count - Self.changesKept / 2
            unlistedUpTo = changes[dropped - 1].generation
            changes.removeFirst(dropped)
        }
        let token = relative.split(separator: "/", maxSplits: 1).first.map(String.init) ?? relative
        // Taken out of the dictionary while changed, so the listing is not copied; a stale one stays out.
        for account in Array(trees.keys) {
            guard var cached = trees.removeValue(forKey: account), cached.generation == generation - 1 else { continue }
            if account == token, !cached.tree.refresh(relative, in: path, signature: signature) { continue }
            cached.generation = generation
            trees[account] = cached
        }
    }

    /// The paths of the account `token` changed after generation `since`, or `nil` when that
    /// is not known (a change nobody named, or one forgotten since).
    func changedPaths(since: Int, under token: String) -> Set<String>? {
        guard since >= unlistedUpTo else { return nil }
        var paths: Set<String> = []
        for change in changes.reversed() {
            guard change.generation > since else { break }
            if change.path.hasPrefix(token + "/") { paths.insert(change.path) }
        }
        return paths
    }

    /// The files of the account `token` as they are now.
    func tree(of token: String) -> FileTree {
        if let cached = trees[token], cached.generation == generation { return cached.tree }
        let tree = FileTree.list(path, under: token)
        trees[token] = (generation, tree)
        return tree
    }

    /// Bytes held by the account `token`.
    func usage(of token: String) -> Int64 {
        tree(of: token).files.values.reduce(0) { $0 + $1.size }
    }
}
