import Ubiquity

/// The files of one host's copy of the cloud that Syncthing carries, by path (`<account>/…`),
/// each with its size and modification time — Syncthing delivers both exactly, so two hosts
/// that agree on every file hold equal listings. Left out: our `.nosync` files (they never
/// travel) and file-sync engines' temporary files (a file on its way is still missing under its
/// own name, so the listings differ until it arrives).
struct HostListing: Equatable {
    struct Stamp: Equatable {
        let size: Int64
        let modified: Double
    }

    var files: [String: Stamp] = [:]

    /// Lists `root` now: every account folder at its top (Syncthing's `.stfolder` and
    /// `.stignore` are its own, beside the accounts).
    static func of(_ root: String) -> HostListing {
        var listing = HostListing()
        for account in DirectoryEntry.list(root) where account.isDirectory && !account.name.hasPrefix(".") {
            for (path, signature) in FileTree.list(root, under: account.name).files {
                let name = path.split(separator: "/").last.map(String.init) ?? path
                if case .temporary? = SyncArtifact.classify(name) { continue }
                listing.files[path] = Stamp(size: signature.size, modified: signature.modified)
            }
        }
        return listing
    }

    /// The files of one account only.
    func account(_ token: String) -> [String: Stamp] {
        files.filter { $0.key.hasPrefix(token + "/") }
    }

    /// Paths held differently here and in `other` (missing on one side, or another size or time), sorted.
    func differences(from other: HostListing) -> [String] {
        Set(files.keys).union(other.files.keys).filter { files[$0] != other.files[$0] }.sorted()
    }
}
