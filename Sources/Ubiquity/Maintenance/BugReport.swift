import Foundation
import UbiquityBase
import UbiquityCore
import UbiquitySync
#if canImport(Glibc)
import Glibc
#endif

/// What `BugReport.write` wrote.
public struct BugReportSummary: Sendable, Equatable {
    /// The archive's path.
    public let path: String
    /// Its size in bytes.
    public let size: Int64
    /// The files it holds, the manifest included.
    public let files: [String]
    /// The peer whose device it reports.
    public let peerID: String
    public let redacted: Bool
}

/// A bug report as Apple asked for one about iCloud Core Data: the device's folder, the
/// account's part of the container, the status and the doctor's findings, the model, the
/// versions of the tool and the system, and the level-3 log of a fresh sync — in one zip archive
/// with a `manifest.json` saying what is inside. `BugReportReplay` runs it again at a desk.
///
/// The archive's layout: `device/` (the device folder: `device.plist`, its stores under
/// `CoreDataUbiquitySupport`), `cloud/<account>/<container>/<content URL>/` (the ubiquity
/// root: peers' logs and receipts, baselines, external data, the content epoch and key
/// record), `status.json`, `doctor.json`, `model.plist`, `versions.txt`, `sync.log`,
/// `sync.json` and `manifest.json`.
public enum BugReport {
    /// The name of the manifest in the archive.
    public static let manifestName = "manifest.json"
    static let deviceFolder = "device"
    static let cloudFolder = "cloud"
    static let modelName = "model.plist"
    /// The archive's layout version, in the manifest.
    static let format = 1

    /// Writes the bug report of the device of `configuration` to `path` (replaced if it is a
    /// file), changing nothing of the device or its cloud: the device is read through a peer
    /// opened read-only, each store is copied from one snapshot (`VACUUM INTO`, so a process that
    /// owns the device goes on writing), and the fresh sync whose level-3 log the report holds
    /// runs on a copy of what was archived, so its log tells what that state does. With
    /// `redact`, every stored value and natural key is first replaced by a stand-in made from
    /// its hash (`BugReportRedaction`).
    public static func write(configuration: PeerConfiguration, to path: String, redact: Bool = false, now: Date = Date()) throws -> BugReportSummary {
        let folder = (path as NSString).deletingLastPathComponent.isEmpty ? "." : (path as NSString).deletingLastPathComponent
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder), isFolder.boolValue else {
            throw BugReportError.outputFolderMissing(folder)
        }
        if FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), isFolder.boolValue { throw BugReportError.outputIsAFolder(path) }

        var (status, findings, peerID, rootInCloud) = try inspect(configuration)
        let scratch = NSTemporaryDirectory() + "ubiq-bug-report-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let report = scratch + "/report"
        let leftOut = try BugReportCopy.copyDevice(from: configuration.device, to: report + "/" + deviceFolder)
        if let rootInCloud {
            try BugReportCopy.copyTree(from: configuration.cloud + "/" + rootInCloud, to: report + "/" + cloudFolder + "/" + rootInCloud)
        }
        let settings = BugReportSettings(configuration)
        var redaction: BugReportRedaction.Outcome?
        if redact { redaction = try BugReportRedaction.redact(report, model: configuration.model) }

        let captured = CapturedLog()
        let rerun = try BugReportReplay.syncAgain(state: report, in: scratch + "/sync", settings: settings, model: configuration.model,
                                                  logger: captured.logger(level: .verbose), inspectingFirst: redact)
        // Redacted, the status and the findings are those of the redacted state: the device's
        // own may quote a value (a quarantine's reason) or a path of the user's.
        if let before = rerun.before { (status, findings) = before }
        try write(status.text(pretty: true), to: report + "/status.json")
        try write(JSONValue.object(["findings": .array(findings.map(\.jsonValue))]).text(pretty: true), to: report + "/doctor.json")
        try AtomicFile.write(configuration.model.fileContents(), to: report + "/" + modelName)
        try write(versions(hidingHostName: redact), to: report + "/versions.txt")
        try write(captured.text, to: report + "/sync.log")
        try write(rerun.jsonValue.text(pretty: true), to: report + "/sync.json")

        var files = FolderArchive.regularFiles(below: report)
        files.append(manifestName)
        let manifest = BugReportManifest(written: now, peerID: peerID, rootInCloud: rootInCloud, settings: settings,
                                         redacted: redact, redaction: redaction, files: files.sorted(), leftOut: leftOut)
        try write(manifest.jsonValue.text(pretty: true), to: report + "/" + manifestName)
        let written = try FolderArchive.write(folder: report, to: path)
        let size = (try FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.int64Value ?? 0
        return BugReportSummary(path: path, size: size, files: written, peerID: peerID, redacted: redact)
    }

    /// The status, the doctor's findings, the peer and its ubiquity root, read through a peer
    /// opened read-only (`withReadablePeer`: nothing written, not even `lastUsed`).
    private static func inspect(_ configuration: PeerConfiguration) throws -> (JSONValue, [DoctorFinding], String, String?) {
        try UbiquityPeer.withReadablePeer(configuration: configuration) { peer in
            (try ContainerReport.make(for: peer).jsonValue, try Doctor.examine(peer), peer.peerID, peer.location?.rootInCloud)
        }
    }

    private static func write(_ text: String, to path: String) throws {
        try AtomicFile.write(Array((text.hasSuffix("\n") ? text : text + "\n").utf8), to: path)
    }

    /// The tool's version and the system's: `uname` (without the host's name when hiding it)
    /// and `/etc/os-release`.
    static func versions(hidingHostName: Bool) -> String {
        var text = "ubiq \(UbiquityVersion.string) (deflate: \(UbiquityVersion.deflateEngine))\n"
        var name = utsname()
        if uname(&name) == 0 {
            func field<T>(_ value: T) -> String {
                withUnsafeBytes(of: value) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            }
            text += "uname: \(field(name.sysname)) \(hidingHostName ? "-" : field(name.nodename)) \(field(name.release)) \(field(name.version)) \(field(name.machine))\n"
        }
        if let release = try? String(contentsOfFile: "/etc/os-release", encoding: .utf8) {
            text += "\n/etc/os-release:\n" + release
        }
        return text
    }
}
