import Foundation
import UbiquityBase
import UbiquityCore
import UbiquitySync

/// A bug report run again at a desk (`ubiq scenario replay`): the archive unpacked, its device
/// folder and its part of the cloud put back as they were on an emulated device, and a sync run
/// on it — so a stall seen in the field (a damaged log of another peer, a missing external-data
/// file, logs of a newer model version) shows again, with its doctor findings.
public struct BugReportReplay: Sendable {
    /// What the report says of itself.
    public let manifest: BugReportManifest
    /// Where the report was unpacked (`report/`) and its state rebuilt (`device/`, `cloud/`).
    public let workDirectory: String
    /// The outcome of the sync, or the error it threw.
    public let sync: Outcome
    /// What the doctor finds after the sync.
    public let findings: [DoctorFinding]

    /// The report's peer, the work directory, the sync's outcome and the findings.
    public var jsonValue: JSONValue {
        .object([
            "peerID": .string(manifest.peerID), "redacted": .bool(manifest.redacted), "workDirectory": .string(workDirectory),
            "sync": sync.jsonValue, "findings": .array(findings.map(\.jsonValue)),
        ])
    }

    /// A sync's summary, or why it did not run to its end.
    public enum Outcome: Sendable {
        case summary(SyncSummary)
        case failed(String)

        /// The summary's line, or the error.
        public var line: String {
            switch self {
            case .summary(let summary): return summary.line
            case .failed(let error): return "failed: \(error)"
            }
        }

        var jsonValue: JSONValue {
            switch self {
            case .summary(let summary): return summary.jsonValue
            case .failed(let error): return .object(["error": .string(error)])
            }
        }
    }

    /// Unpacks the bug report at `archive` into `workDirectory` (made if missing; it must hold
    /// nothing), rebuilds its device and cloud there, and syncs the device with `logger`.
    public static func run(archive: String, workDirectory: String, logger: UbiquityLogger) throws -> BugReportReplay {
        if let names = try? FileManager.default.contentsOfDirectory(atPath: workDirectory), !names.isEmpty {
            throw BugReportError.workDirectoryNotEmpty(workDirectory)
        }
        let report = workDirectory + "/report"
        try FolderArchive.extract(archive, into: report)
        let manifest = try BugReportManifest.read(report + "/" + BugReport.manifestName, archive: archive)
        let model = try ObjectModel.load(contentsOf: report + "/" + BugReport.modelName)
        let rerun = try syncAgain(state: report, in: workDirectory, settings: manifest.settings, model: model, logger: logger)
        return BugReportReplay(manifest: manifest, workDirectory: workDirectory, sync: rerun.outcome, findings: rerun.findings)
    }

    /// A sync run on a report's state, and what was found before (when asked) and after it.
    struct Rerun {
        /// The status and the doctor's findings before the sync.
        var before: (status: JSONValue, findings: [DoctorFinding])?
        var outcome: Outcome
        var findings: [DoctorFinding]

        var jsonValue: JSONValue { .object(["sync": outcome.jsonValue, "findings": .array(findings.map(\.jsonValue))]) }
    }

    /// Copies a report's `device/` and `cloud/` from `state` into `work`, points the device at
    /// that cloud, and syncs it as its configuration said; returns the sync's outcome and the
    /// doctor's findings after it (and, with `inspectingFirst`, the status and findings before).
    /// `state` is left as it was.
    static func syncAgain(state: String, in work: String, settings: BugReportSettings, model: ObjectModel,
                          logger: UbiquityLogger, inspectingFirst: Bool = false) throws -> Rerun {
        let device = work + "/" + BugReport.deviceFolder, cloud = work + "/" + BugReport.cloudFolder
        try BugReportCopy.copyTree(from: state + "/" + BugReport.deviceFolder, to: device)
        try BugReportCopy.copyTree(from: state + "/" + BugReport.cloudFolder, to: cloud)
        _ = try Device.moveCloud(to: cloud, at: device)
        var configuration = PeerConfiguration(cloud: cloud, device: device, model: model, contentName: settings.contentName,
                                              containerIdentifier: settings.containerIdentifier, contentURL: settings.contentURL,
                                              storeName: settings.storeName, peerToken: settings.peerToken,
                                              logFormat: settings.logFormat, logger: logger)
        // As the tool opens a device: a store of another model version is reported, not migrated.
        configuration.migratesStore = false
        return try UbiquityPeer.withPeer(configuration: configuration) { peer in
            let before = inspectingFirst ? (try ContainerReport.make(for: peer).jsonValue, try Doctor.examine(peer)) : nil
            let outcome: Outcome
            do { outcome = .summary(try peer.sync(reportingImportFailure: true)) } catch { outcome = .failed("\(error)") }
            return Rerun(before: before, outcome: outcome, findings: try Doctor.examine(peer))
        }
    }
}
