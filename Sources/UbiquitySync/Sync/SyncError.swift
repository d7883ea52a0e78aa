/// Why a sync step could not be done.
public enum SyncError: Error, CustomStringConvertible, Equatable, Sendable {
    /// The container cannot be written: the outbox keeps the logs and a later sync retries.
    case containerUnwritable(path: String, reason: String)
    case signedOut
    /// The app still works on the fallback store: the initial import has not completed.
    case initialImportPending
    /// The content is encrypted and this device holds no key: nothing is read or written.
    case encryptedWithoutKey

    public var description: String {
        switch self {
        case let .containerUnwritable(path, reason): return "cannot write into the container at \(path): \(reason); the outbox keeps the logs"
        case .signedOut: return "signed out: the local store does not sync"
        case .initialImportPending: return "the initial import has not completed: the app works on the fallback store, which does not sync"
        case .encryptedWithoutKey: return ContentSealing.noKeyMessage
        }
    }
}
