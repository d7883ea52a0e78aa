import Foundation
import UbiquityBase

/// What the owner of a device is doing to a store that a reader beside it must not read through.
public enum StoreReplacement: String, Sendable, Equatable {
    /// Deleted and made again from the container (`ubiq rebuild`).
    case rebuild
    /// Carried to another model version (`ubiq model migrate`, an app's new version).
    case migration

    var words: String {
        switch self {
        case .rebuild: return "being rebuilt from the container"
        case .migration: return "being migrated to another model version"
        }
    }
}

/// The files beside a store that tell readers in other processes (which take no lock) what its
/// owner is doing: `<store>.creating` is a new store whose schema is being made, renamed onto
/// the store's name once complete; `<store>.rebuilding` (the owner's pid and a
/// `StoreReplacement`) stands while the store is replaced or migrated, and is removed after.
package enum StoreMarker {
    package static func creatingPath(_ store: String) -> String { store + ".creating" }
    package static func rebuildingPath(_ store: String) -> String { store + ".rebuilding" }

    /// Marks the store at `store` as being replaced by this process, making its folder if needed.
    package static func mark(_ store: String, _ replacement: StoreReplacement) throws {
        try AtomicFile.makeDirectory((store as NSString).deletingLastPathComponent)
        try AtomicFile.write(Array("\(getpid()) \(replacement.rawValue)\n".utf8), to: rebuildingPath(store))
    }

    /// Removes the mark (done, or given up).
    package static func clear(_ store: String) {
        unlink(rebuildingPath(store))
    }

    /// What the owner is doing to the store, if a mark stands and the process that wrote it is
    /// alive: a mark left by a process that died is no replacement in progress.
    package static func replacement(of store: String) -> StoreReplacement? {
        guard let bytes = try? AtomicFile.read(rebuildingPath(store), limit: 256) else { return nil }
        let fields = String(decoding: bytes, as: UTF8.self).split(whereSeparator: \.isWhitespace)
        guard fields.count == 2, let pid = Int32(fields[0]), pid > 0, let replacement = StoreReplacement(rawValue: String(fields[1])) else { return nil }
        guard kill(pid, 0) == 0 || errno == EPERM else { return nil }
        return replacement
    }
}
