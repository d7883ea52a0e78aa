import Crypto
import Foundation
import UbiquityBase
import UbiquityCore
import UbiquityPlist
import ZIPFoundation

/// What a baseline says about itself (`metadata.plist` inside `baseline.zip`).
public struct BaselineMetadata: Sendable, Equatable {
    public var author: String
    /// The knowledge the baseline's state holds: every log it covers.
    public var knowledge: KnowledgeVector
    /// The knowledge of the baseline it replaced.
    public var previousKnowledge: KnowledgeVector
    public var modelVersionHash: String
    public var storeName: String
    public var contentName: String
    /// Seconds since 1970.
    public var created: Double
    /// SHA-256 (hex) of `store.sqlite` and `model.plist` in the archive.
    public var storeChecksum: String
    public var modelChecksum: String
    /// The content epoch of the state (`nil`: content never removed).
    public var contentEpoch: String?

    var plistValue: PlistValue {
        var fields: [String: PlistValue] = [
            "format": .integer(1), "author": .string(author), "kvStr": .string(knowledge.description),
            "previousKvStr": .string(previousKnowledge.description), "modelVersionHash": .string(modelVersionHash),
            "storeName": .string(storeName), "contentName": .string(contentName), "created": .real(created),
            "storeChecksum": .string(storeChecksum), "modelChecksum": .string(modelChecksum),
        ]
        if let contentEpoch { fields["contentEpoch"] = .string(contentEpoch) }
        return .dictionary(fields)
    }

    init(plist: PlistValue) throws(BaselineError) {
        guard plist["format"]?.int64Value == 1 else { throw .unreadable("metadata.plist: missing or unknown format") }
        func string(_ key: String) throws(BaselineError) -> String {
            guard let value = plist[key]?.stringValue else { throw .unreadable("metadata.plist: missing '\(key)'") }
            return value
        }
        guard let knowledge = KnowledgeVector(string: try string("kvStr")),
              let previous = KnowledgeVector(string: try string("previousKvStr")) else { throw .unreadable("metadata.plist: invalid knowledge vector") }
        self.init(author: try string("author"), knowledge: knowledge, previousKnowledge: previous,
                  modelVersionHash: try string("modelVersionHash"), storeName: try string("storeName"),
                  contentName: try string("contentName"), created: plist["created"]?.doubleValue ?? 0,
                  storeChecksum: try string("storeChecksum"), modelChecksum: try string("modelChecksum"),
                  contentEpoch: plist["contentEpoch"]?.stringValue)
    }

    init(author: String, knowledge: KnowledgeVector, previousKnowledge: KnowledgeVector, modelVersionHash: String,
         storeName: String, contentName: String, created: Double, storeChecksum: String, modelChecksum: String, contentEpoch: String?) {
        self.author = author
        self.knowledge = knowledge
        self.previousKnowledge = previousKnowledge
        self.modelVersionHash = modelVersionHash
        self.storeName = storeName
        self.contentName = contentName
        self.created = created
        self.storeChecksum = storeChecksum
        self.modelChecksum = modelChecksum
        self.contentEpoch = contentEpoch
    }
}

/// `baseline.zip` (DESIGN §6): `metadata.plist`, `model.plist` and `store.sqlite` (the merge
/// state: objects with their stamps, pairs, tombstones).
enum BaselineArchive {
    static let metadataName = "metadata.plist", modelName = "model.plist", storeName = "store.sqlite"

    /// Zips a baseline into `path` (a temporary `.nosync` path; the caller renames it into place).
    static func write(metadata: BaselineMetadata, model: ObjectModel, storeFile: String, to path: String) throws {
        let scratch = (storeFile as NSString).deletingLastPathComponent
        try AtomicFile.write(PlistSeam.encode(metadata.plistValue, format: .xml), to: scratch + "/" + metadataName)
        try AtomicFile.write(model.fileContents(format: .xml), to: scratch + "/" + modelName)
        try? FileManager.default.removeItem(atPath: path)
        let archive = try Archive(url: URL(fileURLWithPath: path), accessMode: .create)
        for name in [metadataName, modelName, storeName] {
            try archive.addEntry(with: name, fileURL: URL(fileURLWithPath: scratch + "/" + name), compressionMethod: .deflate)
        }
        // Make the archive durable before it is renamed into place.
        let descriptor = open(path, O_RDONLY)
        if descriptor >= 0 { fsync(descriptor); close(descriptor) }
    }

    /// Reads only the metadata of the baseline at `path`. A sync asks several times and the
    /// archive is replaced only by rename, so the answer is kept while the file's size, time
    /// and inode stay the same.
    static func readMetadata(_ path: String) throws(BaselineError) -> BaselineMetadata {
        guard let file = DirectoryEntry.at(path), file.isRegularFile else { throw .unreadable("no baseline at \(path)") }
        if let known = MetadataCache.shared.lookup(path, file) { return known }
        let metadata = try readMetadataFromArchive(path)
        MetadataCache.shared.store(path, file, metadata)
        return metadata
    }

    private static func readMetadataFromArchive(_ path: String) throws(BaselineError) -> BaselineMetadata {
        do {
            let archive = try Archive(url: URL(fileURLWithPath: path), accessMode: .read)
            guard let entry = archive[metadataName] else { throw BaselineError.unreadable("no metadata.plist in the archive") }
            var bytes: [UInt8] = []
            _ = try archive.extract(entry) { bytes.append(contentsOf: $0) }
            return try BaselineMetadata(plist: try PlistSeam.decode(bytes))
        } catch let error as BaselineError {
            throw error
        } catch {
            throw .unreadable("\(error)")
        }
    }

    /// Extracts the store file into `directory` and verifies it against the metadata.
    static func extractStore(_ path: String, metadata: BaselineMetadata, into directory: String) throws(BaselineError) -> String {
        let target = directory + "/" + storeName
        do {
            try? FileManager.default.removeItem(atPath: target)
            try AtomicFile.makeDirectory(directory)
            let archive = try Archive(url: URL(fileURLWithPath: path), accessMode: .read)
            guard let entry = archive[storeName] else { throw BaselineError.unreadable("no store.sqlite in the archive") }
            _ = try archive.extract(entry, to: URL(fileURLWithPath: target))
        } catch let error as BaselineError {
            throw error
        } catch {
            throw .unreadable("\(error)")
        }
        guard (try? sha256Hex(ofFile: target)) == metadata.storeChecksum else {
            throw .unreadable("store.sqlite does not match its checksum")
        }
        return target
    }

    static func sha256Hex(ofFile path: String) throws -> String {
        guard let handle = FileHandle(forReadingAtPath: path) else { throw BaselineError.unreadable("cannot read \(path)") }
        defer { try? handle.close() }
        var hasher = SHA256()
        while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty { hasher.update(data: chunk) }
        return hasher.finalize().map { String(format: "%02x", $0) }.joined()
    }
}

/// A baseline that cannot be used. A bad baseline is ignored (and reported); logs still import.
public enum BaselineError: Error, CustomStringConvertible, Equatable, Sendable {
    case unreadable(String)
    case otherModel(String)

    public var description: String {
        switch self {
        case let .unreadable(reason): return "unreadable baseline: \(reason)"
        case let .otherModel(hash): return "the baseline is for another model (\(hash))"
        }
    }
}

extension BaselineMetadata {
    /// Reads the metadata of the baseline archive at `path` (a file-sync tool uses it to keep the
    /// dominating one of two conflicting baselines).
    public init(archiveAt path: String) throws(BaselineError) {
        self = try BaselineArchive.readMetadata(path)
    }
}

/// Baseline metadata already read, by archive path and file signature.
private final class MetadataCache: @unchecked Sendable {
    static let shared = MetadataCache()
    private let lock = NSLock()
    private var entries: [String: (file: DirectoryEntry, metadata: BaselineMetadata)] = [:]

    func lookup(_ path: String, _ file: DirectoryEntry) -> BaselineMetadata? {
        lock.withLock {
            guard let entry = entries[path], entry.file.size == file.size, entry.file.modificationTime == file.modificationTime,
                  entry.file.inode == file.inode else { return nil }
            return entry.metadata
        }
    }

    func store(_ path: String, _ file: DirectoryEntry, _ metadata: BaselineMetadata) {
        lock.withLock {
            if entries.count > 256 { entries.removeAll() }
            entries[path] = (file, metadata)
        }
    }
}
