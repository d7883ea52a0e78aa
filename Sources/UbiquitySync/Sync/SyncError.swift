import UbiquityBase
/// Why a sync step could not be done.
public enum SyncError: AdvisingError, Equatable, Sendable {
    /// The container cannot be written: the outbox keeps the logs and a later sync retries.
    case containerUnwritable(path: String, reason: String)
    case signedOut
    /// The app still works on the fallback store: the initial import has not completed.
    case initialImportPending
    /// The content is encrypted and this device holds no key: nothing is read or written.
    case encryptedWithoutKey
    /// The content is encrypted (its files are sealed, or this device has seen it so) but its
    /// key record is gone: nothing is written, never plaintext, until the record is back.
    case keyRecordMissing(path: String)
    /// The content's key record names key `recordedKeyID`, but its files are sealed under
    /// `contentKeyID` (and none under the one it names): it was altered, and this device holds
    /// no key to go on with.
    case keyRecordAltered(path: String, recordedKeyID: String, contentKeyID: String)

    public var advice: Advice {
        switch self {
        case let .containerUnwritable(path, reason): return "cannot write into the container at \(path): \(reason); the outbox keeps the logs"
        case .signedOut: return "signed out: the local store does not sync"
        case .initialImportPending: return "the initial import has not completed: the app works on the fallback store, which does not sync"
        case .encryptedWithoutKey: return ContentSealing.noKey
        case let .keyRecordMissing(path):
            return "content is encrypted, but its key record \(path) is missing (a file-sync tool may have carried its deletion): nothing is written until it is back; put it back from a backup of the cloud or from another machine's copy of it"
        case let .keyRecordAltered(path, recorded, content):
            return "the key record \(path) was altered: it names key \(recorded.prefix(8))…, but the content's files are sealed under key \(content.prefix(8))…; a device holding the key puts it back at its next sync, or give this device the passphrase (\(.unlockEncryption)), which opens the record under the content's key and puts it back"
        }
    }
}
