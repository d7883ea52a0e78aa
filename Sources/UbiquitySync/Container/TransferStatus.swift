import Foundation
import UbiquityBase
import UbiquityPlist

/// File states as Xcode's iCloud report showed them.
public enum FileState: String, Sendable, CaseIterable {
    /// In the cloud and here (for a device without a transfer daemon: applied here).
    case current = "Current"
    /// In the cloud, not here yet (not downloaded, or not imported yet).
    case storedInCloud = "Stored in Cloud"
    /// Here, not in the cloud yet (not uploaded: it waits in the outbox or the upload queue).
    case dataNotPresent = "Data Not Present"
    /// A `.nosync` name: never travels.
    case excluded = "Excluded"
}

/// What a device's transfer daemon last reported about the files between its mirror and the
/// cloud (`<device>/CloudDaemon/status.plist`): the daemon writes it, `ubiq status` reads it, as
/// iOS apps asked the iCloud daemon through `NSMetadataQuery`.
public struct TransferStatus: Sendable, Equatable {
    /// Each file's state, by path relative to the cloud (`<token>/<container>/…`).
    public var files: [String: FileState]
    /// The daemon transfers nothing (a scripted offline window or a random one).
    public var offline: Bool
    /// Uploads refused because the account is over its quota (they wait and are retried).
    public var quotaExceeded: Bool
    /// Transfers waiting: uploads and downloads (including retries).
    public var waitingUploads: Int
    public var waitingDownloads: Int
    /// When the daemon wrote this, in seconds since 1970 on its clock.
    public var date: Double

    public init(files: [String: FileState] = [:], offline: Bool = false, quotaExceeded: Bool = false,
                waitingUploads: Int = 0, waitingDownloads: Int = 0, date: Double = 0) {
        self.files = files
        self.offline = offline
        self.quotaExceeded = quotaExceeded
        self.waitingUploads = waitingUploads
        self.waitingDownloads = waitingDownloads
        self.date = date
    }

    public static func path(device: String) -> String { device + "/CloudDaemon/status.plist" }

    /// The last status the device's daemon wrote, or `nil` when it never ran (or wrote garbage).
    public static func load(device: String) -> TransferStatus? {
        guard let bytes = try? AtomicFile.read(path(device: device), limit: 64 << 20),
              let plist = try? PlistSeam.decode(bytes), let files = plist["files"]?.dictionaryValue else { return nil }
        return TransferStatus(
            files: files.compactMapValues { $0.stringValue.flatMap(FileState.init(rawValue:)) },
            offline: plist["offline"]?.boolValue ?? false, quotaExceeded: plist["quotaExceeded"]?.boolValue ?? false,
            waitingUploads: Int(plist["waitingUploads"]?.int64Value ?? 0), waitingDownloads: Int(plist["waitingDownloads"]?.int64Value ?? 0),
            date: plist["date"]?.doubleValue ?? 0)
    }

    /// Writes the status atomically.
    public func save(device: String) throws {
        let value = PlistValue.dictionary([
            "files": .dictionary(files.mapValues { .string($0.rawValue) }), "offline": .boolean(offline),
            "quotaExceeded": .boolean(quotaExceeded), "waitingUploads": .integer(Int64(waitingUploads)),
            "waitingDownloads": .integer(Int64(waitingDownloads)), "date": .real(date),
        ])
        try AtomicFile.makeDirectory(device + "/CloudDaemon")
        try AtomicFile.write(PlistSeam.encode(value, format: .binary), to: Self.path(device: device))
    }
}
