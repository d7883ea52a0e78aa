import Foundation
import UbiquityBase
import UbiquityPlist

/// What of a peer's configuration a bug report keeps, so its replay opens the same store in
/// the same place of the container.
struct BugReportSettings: Sendable, Equatable {
    var contentName: String
    var containerIdentifier: String
    var contentURL: String
    var storeName: String
    var peerToken: String?
    var logFormat: PlistFormat

    init(_ configuration: PeerConfiguration) {
        contentName = configuration.contentName
        containerIdentifier = configuration.containerIdentifier
        contentURL = configuration.contentURL
        storeName = configuration.storeName
        peerToken = configuration.peerToken
        logFormat = configuration.logFormat
    }

    init(contentName: String, containerIdentifier: String, contentURL: String, storeName: String, peerToken: String?, logFormat: PlistFormat) {
        self.contentName = contentName
        self.containerIdentifier = containerIdentifier
        self.contentURL = contentURL
        self.storeName = storeName
        self.peerToken = peerToken
        self.logFormat = logFormat
    }
}

/// A bug report's `manifest.json`: what is inside, when it was written, of which peer, and
/// whether (and how) its values were redacted.
public struct BugReportManifest: Sendable, Equatable {
    /// When the report was written.
    public let written: Date
    /// The peer whose device the report holds.
    public let peerID: String
    /// The ubiquity root below the cloud (`<account>/<container>/<content URL>`); nil for a
    /// device signed out, whose report holds no cloud.
    public let rootInCloud: String?
    let settings: BugReportSettings
    public let redacted: Bool
    let redaction: BugReportRedaction.Outcome?
    /// The files of the archive.
    public let files: [String]
    /// The device's files left out (locks, temporary files, the content key, SQLite's WAL and
    /// shared memory, whose contents the copied stores hold).
    public let leftOut: [String]

    var jsonValue: JSONValue {
        var object: [String: JSONValue] = [
            "format": .int(Int64(BugReport.format)),
            "tool": .string("ubiq \(UbiquityVersion.string)"),
            "written": .string(ISO8601DateFormatter().string(from: written)),
            "peerID": .string(peerID),
            "contentName": .string(settings.contentName),
            "containerIdentifier": .string(settings.containerIdentifier),
            "contentURL": .string(settings.contentURL),
            "storeName": .string(settings.storeName),
            "logFormat": .string(settings.logFormat.rawValue),
            "redacted": .bool(redacted),
            "files": .array(files.map(JSONValue.string)),
            "leftOut": .array(leftOut.map(JSONValue.string)),
        ]
        if let rootInCloud { object["rootInCloud"] = .string(rootInCloud) }
        if let peerToken = settings.peerToken { object["peerToken"] = .string(peerToken) }
        if let redaction { object["redaction"] = redaction.jsonValue }
        return .object(object)
    }

    /// Reads the manifest at `path` (`archive` names the report in errors).
    static func read(_ path: String, archive: String) throws -> BugReportManifest {
        guard FileManager.default.fileExists(atPath: path) else { throw BugReportError.notABugReport(archive) }
        let object: [String: Any]
        do {
            object = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any] ?? [:]
        } catch {
            throw BugReportError.unreadableManifest(archive, "not JSON")
        }
        func string(_ key: String) throws -> String {
            guard let value = object[key] as? String else { throw BugReportError.unreadableManifest(archive, "no \(key)") }
            return value
        }
        guard let format = PlistFormat(rawValue: try string("logFormat")) else { throw BugReportError.unreadableManifest(archive, "an unknown logFormat") }
        guard let written = ISO8601DateFormatter().date(from: try string("written")) else { throw BugReportError.unreadableManifest(archive, "no date in written") }
        let settings = BugReportSettings(contentName: try string("contentName"), containerIdentifier: try string("containerIdentifier"),
                                         contentURL: try string("contentURL"), storeName: try string("storeName"),
                                         peerToken: object["peerToken"] as? String, logFormat: format)
        return BugReportManifest(written: written, peerID: try string("peerID"), rootInCloud: object["rootInCloud"] as? String,
                                 settings: settings, redacted: object["redacted"] as? Bool ?? false, redaction: nil,
                                 files: object["files"] as? [String] ?? [], leftOut: object["leftOut"] as? [String] ?? [])
    }
}
