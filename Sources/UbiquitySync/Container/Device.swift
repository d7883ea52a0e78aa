import Foundation
import UbiquityBase
import UbiquityPlist

/// A local directory that plays one iOS device or Mac: its UUID, its user and the identity
/// token of the iCloud account it is signed in to (none = signed out), kept in `device.plist`.
///
/// A device may keep a *mirror* of its containers (`Mobile Documents/`, as iOS does): its peers
/// then read and write the mirror, and a transfer daemon (the emulated one of
/// `UbiquitySimulation`, or any file-sync tool) carries files between the mirror and the cloud.
public struct Device: Sendable, Equatable {
    public let directory: String
    public let deviceUUID: UUID
    public let userName: String
    public var identityToken: String?
    /// Whether peers use the local mirror instead of the cloud directly.
    public let mirrorsCloud: Bool
    /// The cloud this device belongs to (an absolute path): a peer opened with another is
    /// refused, so a mistyped cloud path never starts a new, empty cloud. `nil` in devices made
    /// before it was kept: they adopt the cloud of their first use. `device.plist` keeps it
    /// relative to the device's folder, so a device and its cloud copied or moved together
    /// (`cp -r containers/demo /tmp/demo`) still belong together.
    public private(set) var cloud: String?

    /// The account a new device is signed in to unless told otherwise.
    public static let defaultAccount = "default"

    /// The file in a device's directory that describes it; a running coordinator watches it
    /// for account changes.
    public static let plistName = "device.plist"

    var plistPath: String { directory + "/" + Self.plistName }

    /// The local mirror of the device's containers; it has the cloud's layout.
    public var mirrorDirectory: String { directory + "/Mobile Documents" }

    /// Where this device's peers find `cloud`: the cloud itself, or the device's mirror of it.
    public func cloudSeenHere(_ cloud: String) -> String { mirrorsCloud ? mirrorDirectory : cloud }

    /// Creates `device.plist` in `directory` (the directory is created too). A given
    /// `deviceUUID` makes peer IDs reproducible (scenarios); `mirrorsCloud` gives the device a
    /// local mirror that a transfer daemon syncs with the cloud.
    public static func create(at directory: String, userName: String = "user", identityToken: String? = defaultAccount,
                              deviceUUID: UUID = UUID(), mirrorsCloud: Bool = false, cloud: String? = nil) throws(DeviceError) -> Device {
        guard CloudNames.isValidPathComponent(userName.lowercased()), !userName.contains("~") else {
            throw .invalidUserName(userName)
        }
        if let identityToken, !CloudNames.isValidPathComponent(identityToken) {
            throw .invalidIdentityToken(identityToken)
        }
        let device = Device(directory: directory, deviceUUID: deviceUUID, userName: userName, identityToken: identityToken,
                            mirrorsCloud: mirrorsCloud, cloud: cloud.map(CloudPath.normalized))
        guard !FileManager.default.fileExists(atPath: device.plistPath) else { throw .alreadyExists(directory) }
        do { try AtomicFile.makeDirectory(directory) } catch { throw .unusable(directory, error.message) }
        try device.save()
        return device
    }

    /// The device in `directory`: loaded when `device.plist` is there (an app's second launch),
    /// else created as `create` does (its first). A device there of another user is refused:
    /// `userName` says whose device the app expects. `create` stays strict for tools that must
    /// not adopt a device by mistake.
    public static func openOrCreate(at directory: String, userName: String = "user",
                                    identityToken: String? = defaultAccount) throws(DeviceError) -> Device {
        let existing: Device
        do throws(DeviceError) { existing = try load(from: directory) } catch {
            guard case .notInitialized = error else { throw error }
            do throws(DeviceError) {
                return try create(at: directory, userName: userName, identityToken: identityToken)
            } catch .alreadyExists {
                // Another process created it between the two looks: use theirs.
                existing = try load(from: directory)
            }
        }
        guard existing.userName == userName else {
            throw .otherUser(device: directory, owner: existing.userName, expected: userName)
        }
        return existing
    }

    /// Reads `device.plist` from `directory`.
    public static func load(from directory: String) throws(DeviceError) -> Device {
        let path = directory + "/" + plistName
        guard FileManager.default.fileExists(atPath: path) else { throw .notInitialized(directory) }
        let plist: PlistValue
        do { plist = try PlistSeam.decode(try AtomicFile.read(path, limit: 1 << 20)) } catch { throw .unusable(directory, "device.plist: \(error)") }
        guard let uuidText = plist["deviceUUID"]?.stringValue, let uuid = UUID(uuidString: uuidText),
              let user = plist["userName"]?.stringValue else {
            throw .unusable(directory, "device.plist lacks deviceUUID or userName")
        }
        return Device(directory: directory, deviceUUID: uuid, userName: user, identityToken: plist["identityToken"]?.stringValue,
                      mirrorsCloud: plist["mirrorsCloud"]?.boolValue ?? false,
                      cloud: plist["cloud"]?.stringValue.map { $0.hasPrefix("/") ? $0 : CloudPath.normalized(CloudPath.normalized(directory) + "/" + $0) })
    }

    /// Writes `device.plist` atomically.
    public func save() throws(DeviceError) {
        var fields: [String: PlistValue] = ["deviceUUID": .string(deviceUUID.uuidString), "userName": .string(userName)]
        if let identityToken { fields["identityToken"] = .string(identityToken) }
        if mirrorsCloud { fields["mirrorsCloud"] = .boolean(true) }
        if let cloud { fields["cloud"] = .string(CloudPath.relative(cloud, from: CloudPath.normalized(directory))) }
        do { try AtomicFile.write(PlistSeam.encode(.dictionary(fields), format: .xml), to: plistPath) } catch { throw .unusable(directory, error.description) }
    }

    /// Signs the device in to the account `token` (`nil` signs out), as the system's account
    /// settings would: `device.plist` is rewritten, and a running coordinator notices.
    /// Works while another process owns the device: it only replaces `device.plist` atomically.
    public static func setAccount(_ token: String?, at directory: String) throws(DeviceError) -> Device {
        if let token, !CloudNames.isValidPathComponent(token) {
            throw .invalidIdentityToken(token)
        }
        var device = try load(from: directory)
        device.identityToken = token
        try device.save()
        return device
    }

    /// Checks that `cloud` is this device's cloud (the same folder, however it is spelled); a
    /// device that remembers none adopts it and says so in `device.plist`. Throws
    /// `DeviceError.otherCloud` for another one.
    public mutating func claim(cloud given: String) throws(DeviceError) {
        let normalized = CloudPath.normalized(given)
        guard let cloud else {
            cloud = normalized
            try save()
            return
        }
        guard CloudPath.same(cloud, normalized) else { throw .otherCloud(device: directory, remembered: cloud, given: normalized) }
    }

    /// Refuses `given` when the device recorded another cloud, writing nothing (a device that
    /// recorded none yet passes: its owner records it on open).
    public func checkCloud(_ given: String) throws(DeviceError) {
        let normalized = CloudPath.normalized(given)
        if let cloud, !CloudPath.same(cloud, normalized) { throw .otherCloud(device: directory, remembered: cloud, given: normalized) }
    }

    /// Makes `cloud` the cloud of the device in `directory`, on purpose (`ubiq device move-cloud`).
    /// Works while another process owns the device, as `setAccount` does.
    public static func moveCloud(to cloud: String, at directory: String) throws(DeviceError) -> Device {
        var device = try load(from: directory)
        device.cloud = CloudPath.normalized(cloud)
        try device.save()
        return device
    }

    /// `<user>~<device UUID>[~<peer token>]`, lower-case as Apple's.
    public func peerID(peerToken: String? = nil) -> String {
        ([userName, deviceUUID.uuidString] + (peerToken.map { [$0] } ?? [])).joined(separator: "~").lowercased()
    }
}
