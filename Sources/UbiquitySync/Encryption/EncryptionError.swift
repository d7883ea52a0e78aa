import UbiquityBase
/// Why an encryption step cannot be done. Nothing in the cloud or on the device is changed
/// when one is thrown.
public enum EncryptionError: AdvisingError, Equatable, Sendable {
    /// The passphrase does not open the content key.
    case wrongPassphrase
    /// The content is encrypted and this device holds no key for it.
    case noKey
    case alreadyEnabled
    case notEnabled
    case emptyPassphrase
    case invalidParameters(String)
    /// The key record in the cloud, or the key kept on this device, cannot be used.
    case damagedRecord(String)
    /// The key record names key `recordedKeyID`, the content's files are sealed under
    /// `contentKeyID`, and the passphrase opens the record under neither.
    case alteredRecord(recordedKeyID: String, contentKeyID: String)
    /// The key record cannot be repaired without the passphrase (why).
    case passphraseNeeded(String)
    case signedOut

    public var advice: Advice {
        switch self {
        case .wrongPassphrase: return "wrong passphrase: it does not open this content's key (nothing was changed)"
        case .noKey: return ContentSealing.noKey
        case .alreadyEnabled: return "the content is encrypted already: to give this device the passphrase, \(.unlockEncryption)"
        case .notEnabled: return "the content is not encrypted: to turn encryption on, \(.enableEncryption)"
        case .emptyPassphrase: return "the passphrase is empty"
        case let .invalidParameters(reason): return "\(reason)"
        case let .damagedRecord(reason): return "the content's key record cannot be used: \(reason)"
        case let .alteredRecord(recorded, content):
            return "the key record was altered: it names key \(recorded.prefix(8))…, but the content's files are sealed under key \(content.prefix(8))…, and this passphrase opens it under neither (nothing was changed); a device holding the key puts it back (\(.repairKeyRecord) there)"
        case let .passphraseNeeded(reason):
            return "\(reason): to repair it, \(.repairKeyRecord) with the passphrase"
        case .signedOut: return "signed out: the local store is not in the cloud and is never encrypted"
        }
    }
}
