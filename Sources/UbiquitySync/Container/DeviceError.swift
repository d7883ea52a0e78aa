import UbiquityBase
/// A device directory that cannot be used.
public enum DeviceError: AdvisingError, Equatable, Sendable {
    case notInitialized(String)
    case alreadyExists(String)
    /// Another peer or coordinator owns the device: `owner` says which process.
    case inUse(String, owner: DeviceOwner)
    case unusable(String, String)
    /// A user name that cannot name a peer (peer IDs start with it).
    case invalidUserName(String)
    /// An account's identity token that cannot name a folder of the cloud.
    case invalidIdentityToken(String)
    /// The device in `device` belongs to `owner`, and the app expected `expected`.
    case otherUser(device: String, owner: String, expected: String)
    /// The device belongs to another cloud than the one it was opened with.
    case otherCloud(device: String, remembered: String, given: String)

    public var advice: Advice {
        switch self {
        case let .notInitialized(path): return "no device at \(path) (\(.createDevice) first)"
        case let .alreadyExists(path): return "a device already exists at \(path)"
        case let .inUse(path, owner): return "the device at \(path) is in use by \(owner)"
        case let .unusable(path, reason): return "cannot use the device at \(path): \(reason)"
        case let .invalidUserName(name): return "user name \(CloudNames.quoted(name)) must be 1 to 200 letters, digits, '.', '_', '-', '@', '+'"
        case let .invalidIdentityToken(token):
            return "identity token \(CloudNames.quoted(token)) must be 1 to 200 letters, digits, '.', '_', '-', '@', '+'"
        case let .otherUser(device, owner, expected): return "the device at \(device) belongs to user '\(owner)', not '\(expected)'"
        case let .otherCloud(device, remembered, given):
            return "the device at \(device) belongs to the cloud \(remembered), not \(given) (a mistyped --cloud would start a new, empty cloud); to move the device to \(given) on purpose, \(.moveCloud(to: given, device: device))"
        }
    }
}
