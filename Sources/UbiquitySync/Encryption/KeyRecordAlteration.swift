/// A key record that is not what the content's files, or the key this device holds, say it
/// must be: edited in the cloud (Docs/ContainerFormat.md, "Encryption").
public enum KeyRecordAlteration: Sendable, Equatable {
    /// The record names key `recorded`, but the content's files are sealed under key `content`
    /// (and none under `recorded`). `restorable`: this device holds that key and the record's
    /// check proves it the one written for it with only its key ID changed, so the device puts
    /// the ID back by itself.
    case keyID(recorded: String, content: String, restorable: Bool)
    /// The record names the key this device holds, but its wrapped key, salt or scrypt
    /// parameters are not those written with it: the passphrase no longer opens it.
    case wrapping(keyID: String)

    /// Whether a device holding the key puts the record back without the passphrase.
    public var isRestorable: Bool {
        if case .keyID(_, _, true) = self { return true }
        return false
    }

    /// What is wrong, in one line.
    public var description: String {
        switch self {
        case let .keyID(recorded, content, _):
            return "the key record was altered: it names key \(recorded.prefix(8))…, but the content's files are sealed under key \(content.prefix(8))…"
        case let .wrapping(keyID):
            return "the key record was altered: its wrapped key, salt or scrypt parameters are not those written with key \(keyID.prefix(8))…, so the passphrase no longer opens it"
        }
    }
}
