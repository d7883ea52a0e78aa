import Foundation
import UbiquityBase
import UbiquityCore

/// What became of fetching an external value from the cloud.
package enum ExternalDataFetch: Equatable {
    /// In the store's folder now (or already).
    case present
    /// No file in the cloud yet: the log naming it waits.
    case missing
    /// A file whose bytes are not the value's (cut short, altered, wrongly sealed): relative path and reason.
    case damaged(path: String, reason: String)
    /// Encrypted content this device holds no key for.
    case locked
}

// `.externalData/<ContentName>/<name>`: external binary values in the cloud, one file each,
// streamed in and out a chunk at a time (sealed when the content is encrypted). The name is
// the value's SHA-256, or with encryption a keyed hash of it (`ContentKey.externalDataName`).
extension ContainerLocation {
    /// The name a value is written under now: the keyed name when sealing, else its SHA-256.
    package func externalDataName(_ reference: ExternalDataReference) -> String {
        if case .sealed = sealing.state, let key = sealing.contentKey { return key.externalDataName(sha256: reference.sha256) }
        return reference.sha256
    }

    /// The names a value may lie under, the current one first (content encrypted later may
    /// still hold plaintext files under their plain names).
    package func externalDataNames(_ reference: ExternalDataReference) -> [String] {
        let current = externalDataName(reference)
        return current == reference.sha256 ? [current] : [current, reference.sha256]
    }

    /// The size of a value's file in the cloud, sealed or not.
    package static func fileSize(of reference: ExternalDataReference, sealed: Bool) -> Int64 {
        guard sealed else { return reference.size }
        let chunks = max(1, (reference.size + Int64(SealedFile.chunkSize) - 1) / Int64(SealedFile.chunkSize))
        return reference.size + Int64(SealedFile.headerSize) + chunks * Int64(SealedFile.tagSize)
    }

    /// Writes the value into the cloud from `folder` unless a file of its size is there under its
    /// current name; an existing one has its modification time renewed to `now`, so garbage
    /// collection sees it in use again. Written atomically and fsynced, before the log naming it.
    package func uploadExternalData(_ reference: ExternalDataReference, from folder: ExternalDataFolder, now: Double) throws {
        let name = externalDataName(reference)
        let path = externalDataDirectory + "/" + name
        let key = try sealingKey(forWriting: path)
        if isConfined(externalDataDirectory), let entry = DirectoryEntry.at(path), entry.isRegularFile,
           Int64(entry.size) == Self.fileSize(of: reference, sealed: key != nil) {
            let seconds = now.rounded(.down)
            var times = [timespec(tv_sec: Int(seconds), tv_nsec: Int((now - seconds) * 1e9)), timespec(tv_sec: Int(seconds), tv_nsec: Int((now - seconds) * 1e9))]
            _ = utimensat(AT_FDCWD, path, &times, AT_SYMLINK_NOFOLLOW)
            return
        }
        guard folder.contains(reference) else { throw ExternalDataError.missing(reference) }
        try checkWritable(externalDataDirectory)
        try AtomicFile.makeDirectory(externalDataDirectory)
        let source = try AtomicFile.openRegularFile(folder.path(of: reference))
        defer { close(source) }
        try StreamingFile.write(to: path, modificationTime: now) { write in
            if let key {
                let input = FileHandle(fileDescriptor: source, closeOnDealloc: false)
                try SealedFile.sealStream(key: key, read: { Array(try input.read(upToCount: $0) ?? Data()) }, write: write)
            } else {
                try StreamingFile.forEachChunk(descriptor: source, path: folder.path(of: reference), write)
            }
        }
    }

    /// Brings the value from the cloud into `folder`, checking its bytes against its hash as they
    /// stream (opening the seal when sealed). A file whose bytes do not match is left where it is
    /// and reported `damaged`; nothing of it is kept.
    package func fetchExternalData(_ reference: ExternalDataReference, into folder: ExternalDataFolder) -> ExternalDataFetch {
        if folder.contains(reference) { return .present }
        if case .locked = sealing.state { return .locked }
        guard isConfined(externalDataDirectory) else { return .missing }
        for name in externalDataNames(reference) {
            let path = externalDataDirectory + "/" + name
            guard let entry = DirectoryEntry.at(path) else { continue }
            let relative = relativeExternalDataPath(name)
            guard entry.isRegularFile else { return .damaged(path: relative, reason: "\(entry.kindIfNotRegular ?? "not a regular file"), not a file of external data") }
            do {
                let descriptor = try AtomicFile.openRegularFile(path)
                defer { close(descriptor) }
                var head = [UInt8](repeating: 0, count: SealedFile.magic.count)
                let sealed = pread(descriptor, &head, head.count, 0) == head.count && SealedFile.isSealed(head)
                let matches = try folder.adopt(reference) { write in
                    if sealed {
                        guard let key = sealing.contentKey else { throw FileError(path: path, operation: "open", message: ContentSealing.noKeyMessage) }
                        try SealedFile.openStream(descriptor: descriptor, key: key, write: write)
                    } else {
                        try StreamingFile.forEachChunk(descriptor: descriptor, path: path, write)
                    }
                }
                if matches { return .present }
                return .damaged(path: relative, reason: "its bytes are not external data \(reference.sha256) of \(reference.size) bytes (cut short or altered)")
            } catch let error as FileError where ContentSealing.isNoKey(error) {
                return .locked
            } catch let error as SealError {
                return .damaged(path: relative, reason: error.description)
            } catch {
                return .damaged(path: relative, reason: "unreadable: \(error)")
            }
        }
        return .missing
    }
}
