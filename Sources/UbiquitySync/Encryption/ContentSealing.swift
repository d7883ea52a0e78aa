import Foundation
import Synchronization
import UbiquityBase

/// Whether one peer's content is encrypted and whether this device holds its key: the one
/// object every cloud read and write of that peer passes through (`ContainerLocation.read`,
/// `write`, `openBaseline`, `storeBaseline`). A peer refreshes it at every sync, so a device
/// that learns another one turned encryption on stops writing plaintext at once.
public final class ContentSealing: Sendable {
    /// What a device can do with the content.
    public enum State: Sendable, Equatable {
        /// Not encrypted: files are written as they are.
        case plain
        /// Encrypted, and this device holds the key (its ID): files are sealed and opened.
        case sealed(keyID: String)
        /// Encrypted, and this device holds no key (or one for another key ID): nothing is read
        /// or written until the passphrase is given.
        case locked(keyID: String?)

        /// `plain`, `sealed` or `locked` (as `ubiq status --json` and `ubiq encryption status --json` say).
        public var name: String {
            switch self {
            case .plain: return "plain"
            case .sealed: return "sealed"
            case .locked: return "locked"
            }
        }
    }

    package static let noKey: Advice = "content is encrypted; no key on this device (give it the passphrase: \(.unlockEncryption))"
    /// `noKey` in the library's words: the message of the `FileError`s a locked read or write throws.
    package static let noKeyMessage = noKey.description

    /// A location that never seals (tools that only list, and peers that do not sync).
    public static let none = ContentSealing(recordPath: nil, keyFile: nil, scratchDirectory: nil)

    /// `.encryption/<ContentName>.plist` in the ubiquity root.
    package let recordPath: String?
    /// `content.key` in the device's folder for the account.
    package let keyFile: String?
    /// A folder of the device where a sealed baseline is opened to be read (its plaintext never
    /// lies in the cloud, and is unlinked as soon as the archive is open).
    package let scratchDirectory: String?
    /// Files an encrypted content has sealed (its content epoch, its baseline, peers'
    /// receipts), asked for only when there is no record and no key: one of them sealed still
    /// means the content is encrypted.
    private let sealedWitnesses: @Sendable () -> [String]
    /// The content's files whose seals say which key it is sealed under (its epoch, its
    /// baseline, every peer's receipt), read only when the record names another key than the
    /// one this device holds, or this device holds none.
    private let contentFiles: @Sendable () -> [String]
    /// What the last refresh found.
    private struct Found {
        var key: ContentKey?
        var current: State = .plain
        var recordMissing = false
        var alteration: KeyRecordAlteration?
        /// Whether `encryptedMarker` is known to exist (asked of the disk once, then remembered).
        var markerExists = false
    }
    private let found: Mutex<Found>

    package init(recordPath: String?, keyFile: String?, scratchDirectory: String?, sealedWitnesses: @escaping @Sendable () -> [String] = { [] },
                 contentFiles: @escaping @Sendable () -> [String] = { [] }) {
        self.recordPath = recordPath
        self.keyFile = keyFile
        self.scratchDirectory = scratchDirectory
        self.sealedWitnesses = sealedWitnesses
        self.contentFiles = contentFiles
        found = Mutex(Found())
        refresh()
    }

    /// Beside the device's key: written the first time this device finds the content encrypted,
    /// so that a key record deleted later (a file-sync tool carries deletions) never turns
    /// sealing off on this device, key or no key.
    private var encryptedMarker: String? {
        keyFile.map { ($0 as NSString).deletingLastPathComponent + "/content.encrypted" }
    }

    private func hasSeenEncryption() -> Bool {
        if found.withLock({ $0.markerExists }) { return true }
        guard let marker = encryptedMarker, DirectoryEntry.at(marker) != nil else { return false }
        found.withLock { $0.markerExists = true }
        return true
    }

    /// Whether the state is locked because the content is encrypted and its key record is gone.
    package var isRecordMissing: Bool { found.withLock { $0.recordMissing } }

    /// How the key record was found altered at the last refresh, if it was.
    package var alteration: KeyRecordAlteration? { found.withLock { $0.alteration } }

    /// Why a locked device reads and writes nothing.
    package var lockedError: SyncError {
        if isRecordMissing, let recordPath { return .keyRecordMissing(path: recordPath) }
        if case let .keyID(recorded, content, _)? = alteration, let recordPath {
            return .keyRecordAltered(path: recordPath, recordedKeyID: recorded, contentKeyID: content)
        }
        return .encryptedWithoutKey
    }

    /// Opens sealed files with the key kept in `keyFile`, whatever the cloud's record says: for
    /// tools that check a cloud from outside (the scenario runner's invariants).
    public static func reading(keyFile: String, scratchDirectory: String) -> ContentSealing {
        ContentSealing(recordPath: nil, keyFile: keyFile, scratchDirectory: scratchDirectory)
    }

    /// Seals and opens with `key`, whatever the cloud says (the scenario runner's view of a run
    /// whose devices all hold one key).
    package init(key: ContentKey, scratchDirectory: String) {
        recordPath = nil
        keyFile = nil
        self.scratchDirectory = scratchDirectory
        sealedWitnesses = { [] }
        contentFiles = { [] }
        found = Mutex(Found(key: key, current: .sealed(keyID: key.idHex)))
    }

    public var state: State { found.withLock { $0.current } }

    /// The key record in the cloud: `nil` when there is none; throws when one is there but unreadable.
    package func record() throws(EncryptionError) -> KeyRecord? {
        guard let recordPath, DirectoryEntry.at(recordPath) != nil else { return nil }
        let bytes: [UInt8]
        do { bytes = try AtomicFile.read(recordPath, limit: 1 << 16) } catch { throw .damagedRecord(error.message) }
        return try KeyRecord(decoding: bytes)
    }

    /// Reads the record and the device's key again. A record this device cannot read still
    /// means the content is encrypted: a device without the key stays locked rather than write
    /// plaintext, and one holding a key goes on sealing with it.
    @discardableResult
    package func refresh() -> State {
        guard recordPath != nil || keyFile != nil else { return state }
        let record: KeyRecord??
        do { record = try self.record().map { .some($0) } } catch { record = .some(nil) }
        let deviceKey = keyFile.flatMap { try? DeviceKey.read($0) }
        let next: State
        var missing = false
        var alteration: KeyRecordAlteration?
        switch (record, deviceKey) {
        case let (.none, key?), let (.some(nil), key?):
            next = .sealed(keyID: key.idHex)   // a record gone missing or damaged never turns sealing off
        case let (.some(record?), key?):
            (next, alteration) = judge(record, holding: key)
        case let (.some(record?), nil):
            next = .locked(keyID: record.keyID)
            alteration = contentKeyIDs(unlessOne: record.keyID)?.sorted().first.map { .keyID(recorded: record.keyID, content: $0, restorable: false) }
        case (.some(nil), nil):
            next = .locked(keyID: nil)
        case (.none, nil):
            // No record, no key: plain only if nothing says otherwise. A device that has seen
            // the content encrypted, or finds one of its files sealed, waits for the record.
            missing = hasSeenEncryption() || sealedWitnesses().contains(where: SealedFile.isSealedFile)
            next = missing ? .locked(keyID: nil) : .plain
        }
        if next != .plain, !hasSeenEncryption(), let marker = encryptedMarker {
            if (try? AtomicFile.write(Array("the content is encrypted\n".utf8), to: marker)) != nil { found.withLock { $0.markerExists = true } }
        }
        found.withLock {
            $0.current = next
            $0.recordMissing = missing
            $0.alteration = alteration
            if case .sealed = next { $0.key = deviceKey } else { $0.key = nil }
        }
        return next
    }

    /// What a record makes of the content for a device that holds `key`. The record names it:
    /// sealed (altered when its check says its wrapping changed). It names another key: when its
    /// check proves it `key`'s own with the ID changed, or the content's files are sealed under
    /// `key` and none under the ID it names, the record is the one that is wrong and the device
    /// goes on sealing; otherwise the content is another key's and the device is locked.
    private func judge(_ record: KeyRecord, holding key: ContentKey) -> (State, KeyRecordAlteration?) {
        if record.keyID == key.idHex {
            return (.sealed(keyID: key.idHex), record.isAlteredWrapping(of: key) ? .wrapping(keyID: key.idHex) : nil)
        }
        if record.restored(for: key) != nil {
            return (.sealed(keyID: key.idHex), .keyID(recorded: record.keyID, content: key.idHex, restorable: true))
        }
        if contentKeyIDs(unlessOne: record.keyID)?.contains(key.idHex) == true {
            return (.sealed(keyID: key.idHex), .keyID(recorded: record.keyID, content: key.idHex, restorable: false))
        }
        return (.locked(keyID: record.keyID), nil)
    }

    /// The key IDs the content's files are sealed under; `nil` as soon as one is sealed under
    /// `recorded` (the record is then the content's, as far as its files tell).
    private func contentKeyIDs(unlessOne recorded: String) -> Set<String>? {
        var found: Set<String> = []
        for path in contentFiles() {
            guard let id = SealedFile.keyID(ofFile: path) else { continue }
            if id == recorded { return nil }
            found.insert(id)
        }
        return found
    }

    /// Every key ID the content's files are sealed under, sorted: the IDs a record whose key ID
    /// was changed may have been written with.
    package func contentKeyIDs() -> [String] {
        Set(contentFiles().compactMap(SealedFile.keyID(ofFile:))).sorted()
    }

    /// The plaintext of bytes read from the cloud: sealed ones opened, plaintext ones (content
    /// written before encryption was turned on) as they are.
    package func open(_ bytes: [UInt8], path: String) throws(FileError) -> [UInt8] {
        guard SealedFile.isSealed(bytes) else { return bytes }
        guard let key = found.withLock({ $0.key }) else { throw FileError(path: path, operation: "open", message: Self.noKeyMessage) }
        do { return try SealedFile.open(bytes, key: key) } catch { throw FileError(path: path, operation: "open", message: error.description) }
    }

    /// What to write into the cloud for `bytes`: sealed when the content is encrypted; refused
    /// when it is encrypted and this device holds no key (never plaintext into encrypted content).
    package func seal(_ bytes: [UInt8], path: String) throws(FileError) -> [UInt8] {
        switch found.withLock({ ($0.current, $0.key) }) {
        case (.plain, _): return bytes
        case let (.sealed, key?):
            do { return try SealedFile.seal(bytes, key: key) } catch { throw FileError(path: path, operation: "seal", message: "\(error)") }
        default: throw FileError(path: path, operation: "write", message: Self.noKeyMessage)
        }
    }

    /// The key, when the state is sealed.
    package var contentKey: ContentKey? { found.withLock { $0.key } }

    /// Whether a read failed because this device holds no key (not because the file is bad).
    package static func isNoKey(_ error: FileError) -> Bool { error.message == noKeyMessage }
}
