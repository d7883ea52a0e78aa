import Crypto
import Foundation
import UbiquityBase
import UbiquityCore
import UbiquityPlist
import ZIPFoundation
#if canImport(Glibc)
import Glibc
#endif

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
    /// The removal that made that epoch: its generation and date (0 for content never removed,
    /// and in baselines written before these fields), so a roll never replaces a baseline of a
    /// later removal than its author's.
    public var contentEpochGeneration: Int64 = 0
    public var contentEpochDate: Double = 0
    /// The conflict copies of `baseline.zip` its author had joined when it rolled this one
    /// (`<file name>|<store checksum>` each): they may be deleted once this one is under the name.
    public var resolves: [String] = []
    /// The SHA-256 of every external value the baseline's state holds: garbage collection
    /// keeps their files in the cloud while the baseline may still be joined.
    public var externalData: [String] = []

    var plistValue: PlistValue {
        var fields: [String: PlistValue] = [
            "format": .integer(1), "author": .string(author), "kvStr": .string(knowledge.description),
            "previousKvStr": .string(previousKnowledge.description), "modelVersionHash": .string(modelVersionHash),
            "storeName": .string(storeName), "contentName": .string(contentName), "created": .real(created),
            "storeChecksum": .string(storeChecksum), "modelChecksum": .string(modelChecksum),
        ]
        if !resolves.isEmpty { fields["resolves"] = .array(resolves.map(PlistValue.string)) }
        if !externalData.isEmpty { fields["externalData"] = .array(externalData.map(PlistValue.string)) }
        if let contentEpoch {
            fields["contentEpoch"] = .string(contentEpoch)
            fields["contentEpochGeneration"] = .integer(contentEpochGeneration)
            fields["contentEpochDate"] = .real(contentEpochDate)
        }
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
        contentEpochGeneration = plist["contentEpochGeneration"]?.int64Value ?? 0
        contentEpochDate = plist["contentEpochDate"]?.doubleValue ?? 0
        resolves = plist["resolves"]?.arrayValue?.compactMap(\.stringValue) ?? []
        externalData = plist["externalData"]?.arrayValue?.compactMap(\.stringValue) ?? []
        guard created.isFinite, contentEpochDate.isFinite else { throw .unreadable("metadata.plist: a date that is not a finite number") }
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

/// `baseline.zip` (Docs/Lifecycle.md): `metadata.plist`, `model.plist` and `store.sqlite` (the merge
/// state: objects with their stamps, pairs, tombstones).
enum BaselineArchive {
    static let metadataName = "metadata.plist", modelName = "model.plist", storeName = "store.sqlite"

    /// The level baselines are deflated at: the compiled-in engine's, chosen by measurement.
    static let deflateLevel = BlockDeflater.defaultLevel

    /// A store file up to this size has its state built in memory for a roll
    /// (`PersistentStore.stateFileImage`); a larger one's state goes through a file, so a roll
    /// never holds more than about this much of it in memory.
    static let inMemoryStateLimit: Int64 = 256 << 20

    /// Zips a baseline into `path` (a temporary `.nosync` path; the caller renames it into
    /// place), durable (fsynced) when this returns. The store file is archived first and its
    /// SHA-256 taken in the same pass: the metadata written after it carries that checksum
    /// (whatever `metadata.storeChecksum` said), and is returned. Readers find entries by
    /// name, so their order in the archive is free.
    @discardableResult
    static func write(metadata: BaselineMetadata, model: ObjectModel, storeFile: String, to path: String,
                      level: Int32 = deflateLevel) throws -> BaselineMetadata {
        try write(metadata: metadata, model: model, to: path, level: level) { try $0.add(name: storeName, contentsOf: storeFile) }
    }

    /// `write(metadata:model:storeFile:to:level:)` with the store's bytes in memory (a state
    /// built there, `PersistentStore.stateFileImage`): deflated where they are.
    @discardableResult
    static func write(metadata: BaselineMetadata, model: ObjectModel, storeImage: SQLiteImage, to path: String,
                      level: Int32 = deflateLevel) throws -> BaselineMetadata {
        try write(metadata: metadata, model: model, to: path, level: level) { zip in
            try storeImage.withUnsafeBytes { try zip.add(name: storeName, bytes: $0) }
        }
    }

    /// Zips the store entry that `addStore` adds (returning its SHA-256), then the metadata and model.
    private static func write(metadata: BaselineMetadata, model: ObjectModel, to path: String, level: Int32,
                              addStore: (inout ZipWriter) throws -> String) throws -> BaselineMetadata {
        var zip = try ZipWriter(path: path, level: level)
        var metadata = metadata
        do {
            metadata.storeChecksum = try addStore(&zip)
            try zip.add(name: metadataName, bytes: PlistSeam.encode(metadata.plistValue, format: .xml))
            try zip.add(name: modelName, bytes: model.fileContents(format: .xml))
            try zip.finish()
        } catch {
            zip.abandon()
            unlink(path)
            throw error
        }
        return metadata
    }

    /// Reads only the metadata of the baseline at `path`. A sync asks several times and the
    /// archive is replaced only by rename, so the answer is kept while the file's signature
    /// (size, times, inode) stays the same.
    static func readMetadata(_ path: String, sealing: ContentSealing, caches: SyncCaches?) throws(BaselineError) -> BaselineMetadata {
        guard let file = DirectoryEntry.at(path), file.isRegularFile else { throw .unreadable("no baseline at \(path)") }
        if let known = caches?.baselineMetadata.lookup(path, signature: file.signature) { return known }
        let metadata = try readMetadataFromArchive(path, sealing: sealing)
        caches?.baselineMetadata.store(path, signature: file.signature, metadata)
        return metadata
    }

    private static func readMetadataFromArchive(_ path: String, sealing: ContentSealing) throws(BaselineError) -> BaselineMetadata {
        do {
            let archive = try openForReading(path, sealing: sealing)
            guard let entry = archive[metadataName] else { throw BaselineError.unreadable("no metadata.plist in the archive") }
            var bytes: [UInt8] = []
            _ = try archive.extract(entry) { chunk in
                // A zip entry may inflate to far more than it takes: never hold more than the bound.
                guard bytes.count + chunk.count <= maximumMetadataBytes else { throw BaselineError.unreadable("metadata.plist inflates to more than \(maximumMetadataBytes) bytes") }
                bytes.append(contentsOf: chunk)
            }
            return try BaselineMetadata(plist: try PlistSeam.decode(bytes))
        } catch let error as BaselineError {
            throw error
        } catch {
            throw .unreadable("\(error)")
        }
    }

    /// Opens the archive at `path` for reading. ZIPFoundation opens by path, so the file is
    /// opened first by the safe opener (a regular file, never a FIFO or a link) and the archive
    /// reads `/proc/self/fd/N`, which names that very file: nothing swapped in between is read.
    ///
    /// A sealed archive (encrypted content) is opened into a file of the device (`sealing`'s
    /// scratch folder), which is unlinked as soon as the archive holds it open: its plaintext
    /// never lies in the cloud and does not outlive the read.
    static func openForReading(_ path: String, sealing: ContentSealing) throws -> Archive {
        let descriptor = try AtomicFile.openRegularFile(path)
        defer { close(descriptor) }
        if let opened = try openSealed(descriptor, path: path, sealing: sealing) {
            defer { unlink(opened) }
            return try Archive(url: URL(fileURLWithPath: opened), accessMode: .read)
        }
        let checked = "/proc/self/fd/\(descriptor)"
        return try Archive(url: URL(fileURLWithPath: FileManager.default.fileExists(atPath: checked) ? checked : path), accessMode: .read)
    }

    /// Opens the archive at `path` as a descriptor of its plain zip (a sealed one opened into a
    /// scratch file of the device, already unlinked), for `InflatedStore`.
    private static func openPlainDescriptor(_ path: String, sealing: ContentSealing) throws -> Int32 {
        let descriptor = try AtomicFile.openRegularFile(path)
        guard let opened = try { () throws -> String? in
            do { return try openSealed(descriptor, path: path, sealing: sealing) } catch { close(descriptor); throw error }
        }() else { return descriptor }
        close(descriptor)
        defer { unlink(opened) }
        return try AtomicFile.openRegularFile(opened)
    }

    /// When the archive open at `descriptor` is sealed: opens it into a new scratch file of the
    /// device and returns that file's path (the caller unlinks it once it holds it open).
    private static func openSealed(_ descriptor: Int32, path: String, sealing: ContentSealing) throws -> String? {
        var head = [UInt8](repeating: 0, count: SealedFile.magic.count)
        guard pread(descriptor, &head, head.count, 0) == head.count, SealedFile.isSealed(head) else { return nil }
        guard let key = sealing.contentKey, let scratch = sealing.scratchDirectory else {
            throw FileError(path: path, operation: "open", message: ContentSealing.noKeyMessage)
        }
        try AtomicFile.makeDirectory(scratch)
        let opened = scratch + "/opened-" + UUID().uuidString + ".zip"
        do { try SealedFile.openFile(descriptor: descriptor, to: opened, key: key) } catch let error as SealError {
            throw BaselineError.unreadable(error.description)
        }
        return opened
    }

    /// The most `metadata.plist` may inflate to.
    static let maximumMetadataBytes = 1 << 20
    /// The most `store.sqlite` may inflate to (a zip bomb is refused, not written out).
    static let maximumStoreBytes: Int64 = 16 << 30

    /// Extracts the store file into `directory`, verifying it against the metadata's checksum:
    /// inflated whole (`inflateWhole`, up to `maximumWholeBytes`) or else streamed (never more
    /// than the bound). Tests pass a `maximumWholeBytes` of 0 to take the streaming way.
    static func extractStore(_ path: String, metadata: BaselineMetadata, into directory: String, sealing: ContentSealing,
                             maximumWholeBytes: Int = InflatedStore.maximumBytes,
                             recentlyVerified: RecentlyVerifiedStore?) throws(BaselineError) -> String {
        let target = directory + "/" + storeName
        try? FileManager.default.removeItem(atPath: target)
        do {
            try AtomicFile.makeDirectory(directory)
        } catch {
            throw .unreadable("\(error)")
        }
        // The catalog's check has usually just inflated this very file: its bytes are written out.
        var whole = DirectoryEntry.at(path).flatMap {
            recentlyVerified?.take(key: RecentlyVerifiedStore.key(path: path, signature: $0.signature, checksum: metadata.storeChecksum))
        }
        if whole == nil { whole = try inflateWhole(path, metadata: metadata, sealing: sealing, maximumBytes: maximumWholeBytes) }
        if let store = whole {
            do {
                try store.write(to: target)
            } catch {
                try? FileManager.default.removeItem(atPath: target)
                throw error
            }
            return target
        }
        let descriptor = open(target, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw .unreadable("cannot write \(target)") }
        do {
            defer { close(descriptor) }
            try inflateStore(path, metadata: metadata, sealing: sealing) { chunk in
                try chunk.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) in
                    var done = 0
                    while done < bytes.count {
                        let count = Glibc.write(descriptor, bytes.baseAddress! + done, bytes.count - done)
                        if count < 0, errno == EINTR { continue }
                        guard count > 0 else { throw BaselineError.unreadable("cannot write \(target): \(String(cString: strerror(errno)))") }
                        done += count
                    }
                }
            }
        } catch {
            try? FileManager.default.removeItem(atPath: target)
            throw error
        }
        return target
    }

    /// Checks the store file against the metadata's checksum without writing it anywhere; the
    /// bytes are kept a short while for the join that may follow (`RecentlyVerifiedStore`).
    static func verifyStore(_ path: String, metadata: BaselineMetadata, sealing: ContentSealing,
                            recentlyVerified: RecentlyVerifiedStore?) throws(BaselineError) {
        let before = DirectoryEntry.at(path)?.signature
        if let store = try inflateWhole(path, metadata: metadata, sealing: sealing) {
            guard UnsafeRawBufferPointer(store.bytes).starts(with: sqliteHeader) else { throw notADatabase }
            // Kept only if the file did not change while it was read.
            if let before, DirectoryEntry.at(path)?.signature == before {
                recentlyVerified?.keep(store, key: RecentlyVerifiedStore.key(path: path, signature: before, checksum: metadata.storeChecksum))
            }
            return
        }
        var header: [UInt8] = []
        try inflateStore(path, metadata: metadata, sealing: sealing) { chunk in
            if header.count < sqliteHeader.count { header += chunk.prefix(sqliteHeader.count - header.count) }
        }
        guard header == sqliteHeader else { throw notADatabase }
    }

    /// The first bytes of every SQLite database file. A store whose checksum matches but that
    /// does not start so was damaged before it was zipped, or forged: set aside like any other
    /// bad baseline, so a newcomer goes on from the logs and the next roll replaces it.
    static let sqliteHeader = Array("SQLite format 3\u{0}".utf8)
    private static let notADatabase = BaselineError.unreadable("store.sqlite is not an SQLite database")

    /// The store inflated whole and checked (`InflatedStore`), or `nil` when the
    /// archive is not the usual one: the caller then streams it (`inflateStore`), which reports
    /// what is wrong with it as before. `maximumBytes` is lowered by tests to take the streaming way.
    static func inflateWhole(_ path: String, metadata: BaselineMetadata, sealing: ContentSealing,
                             maximumBytes: Int = InflatedStore.maximumBytes) throws(BaselineError) -> InflatedStore? {
        guard let descriptor = try? openPlainDescriptor(path, sealing: sealing) else { return nil }
        defer { close(descriptor) }
        return try InflatedStore.inflate(descriptor: descriptor, entryName: storeName, checksum: metadata.storeChecksum,
                                         maximumBytes: maximumBytes)
    }

    /// The chunk size of a store's inflation: large, so the reader's per-chunk work is rare.
    private static let inflateChunkSize = 1 << 20

    /// Inflates `store.sqlite`, handing every chunk to `consume` and hashing it on the way; throws
    /// when it inflates past the bound or does not match the metadata's checksum. The SHA-256 of
    /// the whole state is a stronger check than the entry's CRC-32, which is therefore skipped.
    private static func inflateStore(_ path: String, metadata: BaselineMetadata, sealing: ContentSealing,
                                     consume: (Data) throws -> Void) throws(BaselineError) {
        do {
            let archive = try openForReading(path, sealing: sealing)
            guard let entry = archive[storeName] else { throw BaselineError.unreadable("no store.sqlite in the archive") }
            var hasher = SHA256()
            var written: Int64 = 0
            _ = try archive.extract(entry, bufferSize: inflateChunkSize, skipCRC32: true) { chunk in
                written += Int64(chunk.count)
                guard written <= maximumStoreBytes else { throw BaselineError.unreadable("store.sqlite inflates to more than \(maximumStoreBytes) bytes") }
                hasher.update(data: chunk)
                try consume(chunk)
            }
            guard hasher.finalize().map({ String(format: "%02x", $0) }).joined() == metadata.storeChecksum else {
                throw BaselineError.unreadable("store.sqlite does not match its checksum")
            }
        } catch let error as BaselineError {
            throw error
        } catch {
            throw .unreadable("\(error)")
        }
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
    /// dominating one of two conflicting baselines). A sealed archive is read only with
    /// `sealing` holding its content's key; without, it is unreadable, as to iCloud itself.
    public init(archiveAt path: String, sealing: ContentSealing = .none) throws(BaselineError) {
        self = try BaselineArchive.readMetadata(path, sealing: sealing, caches: nil)
    }
}
