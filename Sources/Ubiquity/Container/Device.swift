import Foundation
import UbiquityPlist

/// A local directory that plays one iOS device or Mac: its UUID, its user and the identity
/// token of the iCloud account it is signed in to (none = signed out), kept in `device.plist`.
public struct Device: Sendable, Equatable {
    public let directory: String
    public let deviceUUID: UUID
    public let userName: String
    public var identityToken: String?

    /// The account a new device is signed in to unless told otherwise.
    public static let defaultAccount = "default"

    var plistPath: String { directory + "/device.plist" }

    /// Creates `device.plist` in `directory` (the directory is created too).
    public static func create(at directory: String, userName: String = "user", identityToken: String? = defaultAccount) throws(DeviceError) -> Device {
        guard CloudNames.isValidPathComponent(userName.lowercased()), !userName.contains("~") else {
            throw .invalid("user name '\(userName)' must hold only letters, digits, '.', '_', '-', '@', '+'")
        }
        if let identityToken, !CloudNames.isValidPathComponent(identityToken) {
            throw .invalid("identity token '\(identityToken)' must hold only letters, digits, '.', '_', '-', '@', '+'")
        }
        let device = Device(directory: directory, deviceUUID: UUID(), userName: userName, identityToken: identityToken)
        guard !FileManager.default.fileExists(atPath: device.plistPath) else { throw .alreadyExists(directory) }
        do { try AtomicFile.makeDirectory(directory) } catch { throw .unusable(directory, error.message) }
        try device.save()
        return device
    }

    /// Reads `device.plist` from `directory`.
    public static func load(from directory: String) throws(DeviceError) -> Device {
        let path = directory + "/device.plist"
        guard FileManager.default.fileExists(atPath: path) else { throw .notInitialized(directory) }
        let plist: PlistValue
        do { plist = try PlistSeam.decode(try AtomicFile.read(path, limit: 1 << 20)) } catch { throw .unusable(directory, "device.plist: \(error)") }
        guard let uuidText = plist["deviceUUID"]?.stringValue, let uuid = UUID(uuidString: uuidText),
              let user = plist["userName"]?.stringValue else {
            throw .unusable(directory, "device.plist lacks deviceUUID or userName")
        }
        return Device(directory: directory, deviceUUID: uuid, userName: user, identityToken: plist["identityToken"]?.stringValue)
    }

    /// Writes `device.plist` atomically.
    public func save() throws(DeviceError) {
        var fields: [String: PlistValue] = ["deviceUUID": .string(deviceUUID.uuidString), "userName": .string(userName)]
        if let identityToken { fields["identityToken"] = .string(identityToken) }
        do { try AtomicFile.write(PlistSeam.encode(.dictionary(fields), format: .xml), to: plistPath) } catch { throw .unusable(directory, error.description) }
    }

    /// Signs the device in to the account `token` (`nil` signs out), as the system's account
    /// settings would: `device.plist` is rewritten, and a running coordinator notices.
    /// Works while another process owns the device: it only replaces `device.plist` atomically.
    public static func setAccount(_ token: String?, at directory: String) throws(DeviceError) -> Device {
        if let token, !CloudNames.isValidPathComponent(token) {
            throw .invalid("identity token '\(token)' must hold only letters, digits, '.', '_', '-', '@', '+'")
        }
        var device = try load(from: directory)
        device.identityToken = token
        try device.save()
        return device
    }

    /// `<user>~<device UUID>[~<peer token>]`, lower-case as Apple's.
    public func peerID(peerToken: String? = nil) -> String {
        ([userName, deviceUUID.uuidString] + (peerToken.map { [$0] } ?? [])).joined(separator: "~").lowercased()
    }
}

/// A device directory that cannot be used.
public enum DeviceError: Error, CustomStringConvertible, Equatable, Sendable {
    case notInitialized(String)
    case alreadyExists(String)
    case inUse(String, pid: String)
    case unusable(String, String)
    case invalid(String)

    public var description: String {
        switch self {
        case let .notInitialized(path): return "no device at \(path) (run 'ubiq device init' first)"
        case let .alreadyExists(path): return "a device already exists at \(path)"
        case let .inUse(path, pid): return "the device at \(path) is in use by another process (pid \(pid))"
        case let .unusable(path, reason): return "cannot use the device at \(path): \(reason)"
        case let .invalid(reason): return reason
        }
    }
}
