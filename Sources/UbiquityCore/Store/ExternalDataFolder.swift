import Foundation
import UbiquityBase

/// Where a store keeps its external binary values: one file per value, named by the SHA-256
/// of its bytes, beside the store so its SQLite rows hold only the reference. A store and its
/// fallback share one folder (`<cid>/externalData/` when the store lies in `<cid>/store/` or
/// `<cid>/fallback/`); a store anywhere else keeps `.<StoreName>_SUPPORT/_EXTERNAL_DATA/`
/// beside its file, as Core Data does. Files are written atomically and checked against their
/// name as they stream in, so a file under a name always holds that name's bytes.
public struct ExternalDataFolder: Sendable {
    public let directory: String

    public init(directory: String) { self.directory = directory }

    /// The folder of the store file at `storePath`.
    public init(storePath: String) {
        let folder = (storePath as NSString).deletingLastPathComponent
        let kind = (folder as NSString).lastPathComponent
        if kind == "store" || kind == "fallback" {
            directory = (folder as NSString).deletingLastPathComponent + "/externalData"
        } else {
            let name = ((storePath as NSString).lastPathComponent as NSString).deletingPathExtension
            directory = folder + "/.\(name)_SUPPORT/_EXTERNAL_DATA"
        }
    }

    /// The file holding `reference`'s bytes (it may not exist).
    public func path(of reference: ExternalDataReference) -> String { directory + "/" + reference.sha256 }

    /// Whether the value's file is here, whole (its size; the bytes were checked on the way in).
    public func contains(_ reference: ExternalDataReference) -> Bool {
        guard let entry = DirectoryEntry.at(path(of: reference)), entry.isRegularFile else { return false }
        return Int64(entry.size) == reference.size
    }

    /// Stores `bytes` and returns their reference (nothing is written when they are here already).
    public func add(_ bytes: [UInt8]) throws -> ExternalDataReference {
        try AtomicFile.makeDirectory(directory)
        let incoming = directory + "/incoming-" + UUID().uuidString
        let written = try StreamingFile.write(to: incoming) { write in
            var offset = 0
            repeat {
                let end = min(bytes.count, offset + StreamingFile.chunkSize)
                try write(Array(bytes[offset..<end]))
                offset = end
            } while offset < bytes.count
        }
        return try settle(written, from: incoming)
    }

    /// Copies the file at `source` (the user's: a link is followed) in, a chunk at a time,
    /// hashing as it goes; returns the value's reference. The file is never read whole.
    public func add(fileAt source: String) throws -> ExternalDataReference {
        try AtomicFile.makeDirectory(directory)
        let incoming = directory + "/incoming-" + UUID().uuidString
        let written = try StreamingFile.write(to: incoming) { write in
            try StreamingFile.forEachChunk(of: source, followingLinks: true, write)
        }
        return try settle(written, from: incoming)
    }

    /// Takes in the bytes `produce` streams, which must be `reference`'s: returns `false`, and
    /// keeps nothing, when they are not (another hash or size).
    public func adopt(_ reference: ExternalDataReference, produce: (_ write: ([UInt8]) throws -> Void) throws -> Void) throws -> Bool {
        try AtomicFile.makeDirectory(directory)
        do {
            try StreamingFile.write(to: path(of: reference), accept: { $0.sha256 == reference.sha256 && $0.size == reference.size }, produce: produce)
            return true
        } catch is StreamingFile.Abandoned {
            return false
        }
    }

    /// Copies a value from another store's folder (a migration between stores), streamed and
    /// checked; nothing when it is here already. Throws `missing` when neither folder holds it.
    public func copy(_ reference: ExternalDataReference, from other: ExternalDataFolder) throws {
        guard !contains(reference) else { return }
        guard try adopt(reference, produce: { write in try other.read(reference, write) }) else { throw ExternalDataError.missing(reference) }
    }

    /// Calls `body` with the value's bytes, a chunk at a time.
    public func read(_ reference: ExternalDataReference, _ body: ([UInt8]) throws -> Void) throws {
        guard contains(reference) else { throw ExternalDataError.missing(reference) }
        try StreamingFile.forEachChunk(of: path(of: reference), body)
    }

    /// The value's bytes, whole (for small values and tests; large ones are read with `read`).
    public func bytes(of reference: ExternalDataReference) throws -> [UInt8] {
        guard contains(reference) else { throw ExternalDataError.missing(reference) }
        return try AtomicFile.read(path(of: reference), limit: Int(clamping: reference.size))
    }

    /// Renames a file just written under `incoming` to its hash.
    private func settle(_ written: StreamingFile.Written, from incoming: String) throws -> ExternalDataReference {
        guard let reference = ExternalDataReference(sha256: written.sha256, size: written.size) else {
            unlink(incoming)
            throw FileError(path: incoming, operation: "hash", message: "no valid SHA-256")
        }
        guard rename(incoming, path(of: reference)) == 0 else { throw FileError(path: path(of: reference), operation: "rename", errno: errno) }
        return reference
    }
}

/// An external value whose bytes are not available.
public enum ExternalDataError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The value's file is not in the store's folder (not arrived from the cloud yet, or lost).
    case missing(ExternalDataReference)

    public var description: String {
        switch self {
        case let .missing(reference): return "the external data \(reference.sha256) (\(reference.size) bytes) is not on this device yet"
        }
    }
}
