import Foundation
import Ubiquity

/// The cloud as the emulated daemons share it: its directory, the account quota, and a
/// generation number that moves on every change, so each daemon knows when to look again.
public final class EmulatedCloud {
    public let path: String
    /// Bytes one account may hold (`nil`: no limit). Uploads that would pass it are refused
    /// and retried later; the device keeps working and its uploads wait.
    public var quotaBytes: Int64?
    private(set) var generation = 0
    /// One listing per account and generation, shared by every daemon and check.
    private var trees: [String: (generation: Int, tree: FileTree)] = [:]

    public init(path: String) { self.path = path }

    func didChange() { generation += 1 }

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
