import Foundation
import UbiquityBase
import UbiquityCore

/// A plain baseline's store changed in place (the archive type itself is the sync engine's own).
package enum BaselineStoreRewrite {
    /// Rewrites the plain (unsealed) baseline at `path` with its store file changed by `change`
    /// (handed the extracted file's path, below `scratch`): the metadata stays, but for the
    /// store's checksum, taken again. A bug report's redaction goes through it.
    package static func rewrite(_ path: String, model: ObjectModel, scratch: String, _ change: (String) throws -> Void) throws {
        let metadata = try BaselineArchive.readMetadata(path, sealing: .none, caches: nil)
        let store = try BaselineArchive.extractStore(path, metadata: metadata, into: scratch, sealing: .none, recentlyVerified: nil)
        defer { try? FileManager.default.removeItem(atPath: store) }
        try change(store)
        let temporary = path + ContainerLocation.temporarySuffix
        try BaselineArchive.write(metadata: metadata, model: model, storeFile: store, to: temporary)
        guard rename(temporary, path) == 0 else { throw FileError(path: path, operation: "rename", errno: errno) }
    }
}
