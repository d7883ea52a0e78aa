import Foundation
import UbiquityBase
import UbiquityCore
import UbiquitySync

/// One peer seen in the container.
public struct PeerSummary: Sendable {
    public let peerID: String
    public let logCount: Int
    public let logBytes: Int64
    /// Its highest transaction number present in the container.
    public let highestLog: Int64
    /// Its receipt: what it has imported, and when (`nil` when it has none).
    public let receipt: Receipt?
    /// Transactions present in the container that its receipt does not cover.
    public let behind: Int64

    public var jsonValue: JSONValue {
        .object([
            "peerID": .string(peerID), "logs": .int(Int64(logCount)), "bytes": .int(logBytes), "highestLog": .int(highestLog),
            "receiptKV": receipt.map { .string($0.knowledge.description) } ?? .null,
            "receiptDate": receipt.map { .double($0.date) } ?? .null, "behind": .int(behind),
        ])
    }
}

/// What `ubiq status` and `ubiq peers` report: the device and the container, as this peer sees them.
public struct ContainerReport: Sendable {
    public let peerID: String
    public let account: String?
    public let storeKind: StoreKind
    public let storeReason: String
    public let knowledge: KnowledgeVector
    public let outbox: Int
    /// When this store last applied another peer's log (seconds since 1970).
    public let lastImport: Double?
    public let peers: [PeerSummary]
    public let baseline: BaselineMetadata?
    public let baselineBytes: Int64
    public let quarantined: [QuarantineRecord]
    /// Every file of this content with its state, paths relative to the ubiquity root.
    public let files: [(path: String, state: FileState)]
    /// What the device's transfer daemon last said, when the device keeps a mirror.
    public let transfers: TransferStatus?
    /// Which peers are on which model version, and what waits for an upgrade (account stores).
    public let modelVersions: ModelVersionReport?
    /// Whether the content is encrypted and this device holds the key.
    public var encryption: ContentSealing.State = .plain
    /// External data files in the cloud for this content, and their bytes.
    public var externalDataFiles = 0
    public var externalDataBytes: Int64 = 0
    /// What the last import waited for: logs whose external data had not arrived or was damaged.
    public var externalDataWaits: [String] = []
    /// What the store's owner last found (`SyncState.recorded(in:)`): the app's answer to "am I synced?".
    public var syncState = SyncState.starting

    /// Builds the report for `peer` (a store of the device; its container when it has one).
    public static func make(for peer: UbiquityPeer, storeKind: StoreKind? = nil, storeReason: String? = nil) throws -> ContainerReport {
        let store = peer.store
        let knowledge = store.knowledge
        var peers: [PeerSummary] = []
        var files: [(String, FileState)] = []
        var baseline: BaselineMetadata?
        var baselineBytes: Int64 = 0
        var transfers: TransferStatus?
        // External data files in the cloud, listed once.
        var externalData: [DirectoryEntry] = []
        if let location = peer.location {
            let scan = ContainerScan(location: location)
            externalData = ContainerScan.externalDataFiles(of: location)
            // Damaged (quarantined) files are not something a peer could be behind on.
            let quarantined = Set(try store.quarantined().map(\.path))
            let readable = scan.logs.filter { !quarantined.contains(location.relativeLogPath($0.peerID, $0.name)) }
            let highest = Dictionary(readable.map { ($0.peerID, $0.number) }, uniquingKeysWith: max)
            let daemon = peer.device.mirrorsCloud ? TransferStatus.load(device: peer.device.directory) : nil
            transfers = daemon
            // One listing serves everything below: listing a folder of 10,000 logs twice was half of a status.
            let logsByPeer = Dictionary(grouping: scan.logs, by: \.peerID)
            for name in scan.peers {
                let logs = logsByPeer[name] ?? []
                let receipt = (try? location.read(location.receiptPath(of: name), limit: 1 << 20)).flatMap { try? Receipt(decoding: $0) }
                // A peer is never behind on its own logs.
                let behind = highest.filter { $0.key != name }.reduce(Int64(0)) { $0 + max(0, $1.value - (receipt?.knowledge[$1.key] ?? 0)) }
                peers.append(PeerSummary(peerID: name, logCount: logs.count, logBytes: logs.reduce(0) { $0 + $1.size },
                                         highestLog: highest[name] ?? 0, receipt: receipt, behind: behind))
                // A device with a transfer daemon takes its states from the daemon (below).
                guard daemon == nil else { continue }
                for log in logs { files.append((location.relativeLogPath(name, log.name), log.number <= knowledge[name] ? .current : .storedInCloud)) }
            }
            for file in scan.excluded where daemon == nil {
                files.append((location.relativeLogPath(file.peerID, file.name), .excluded))
            }
            if let daemon {
                // The daemon knows what is on which side: its states are the truth here.
                let root = location.rootInCloud + "/"
                for (path, state) in daemon.files where path.hasPrefix(root) {
                    let relative = String(path.dropFirst(root.count))
                    if relative.split(separator: "/").dropFirst().first.map(String.init) == location.contentName { files.append((relative, state)) }
                }
            }
            if daemon == nil {
                // External data: Current when this device holds the value, else Stored in Cloud.
                let held = Dictionary(try store.externalReferences().flatMap { reference in
                    location.externalDataNames(reference).map { ($0, store.externalData.contains(reference)) }
                }, uniquingKeysWith: { $0 || $1 })
                for file in externalData {
                    files.append((location.relativeExternalDataPath(file.name), held[file.name] == true ? .current : .storedInCloud))
                }
            }
            for entry in try store.pendingOutbox() {
                files.append((location.relativeLogPath(peer.peerID, entry.fileName), .dataNotPresent))
            }
            baseline = peer.baselineMetadata
            baselineBytes = ContainerScan.sharedFolder(.baselines, of: location).first { $0.kind == .baseline }?.file?.size ?? 0
        }
        let lastImport = try store.lastImportDate()
        let kind = storeKind ?? peer.kind
        var report = ContainerReport(
            peerID: peer.peerID, account: peer.device.identityToken, storeKind: kind,
            storeReason: storeReason ?? (kind == .local ? "signed out: the local store, which does not sync" : "the account store"),
            knowledge: knowledge, outbox: try store.pendingOutbox().count, lastImport: lastImport, peers: peers,
            baseline: baseline, baselineBytes: baselineBytes, quarantined: try store.quarantined(), files: files.sorted { $0.0 < $1.0 },
            transfers: transfers, modelVersions: try ModelVersionReport.make(for: peer))
        report.encryption = peer.encryptionState
        report.externalDataFiles = externalData.count
        report.externalDataBytes = externalData.reduce(0) { $0 + $1.size }
        report.externalDataWaits = try store.externalDataWaits()
        report.syncState = SyncState.recorded(in: peer)
        return report
    }

    /// The encryption in words: a device without the key is told plainly.
    public var encryptionText: String {
        switch encryption {
        case .plain: return "not encrypted"
        case .sealed: return "encrypted; this device holds the key"
        case .locked: return ContentSealing.noKeyMessage
        }
    }

    public var jsonValue: JSONValue {
        .object([
            "syncState": syncState.jsonValue,
            "device": .object([
                "peerID": .string(peerID), "account": account.map(JSONValue.string) ?? .null, "store": .string(storeKind.rawValue),
                "why": .string(storeReason), "kv": .string(knowledge.description), "outbox": .int(Int64(outbox)),
                "lastImport": lastImport.map(JSONValue.double) ?? .null,
                "encryption": .string(encryption.name),
            ]),
            "container": .object([
                "peers": .array(peers.map(\.jsonValue)),
                "baseline": baseline.map { metadata in
                    var fields = metadata.jsonValue
                    if case var .object(values) = fields { values["bytes"] = .int(baselineBytes); fields = .object(values) }
                    return fields
                } ?? .null,
                "quarantined": .array(quarantined.map { .object(["path": .string($0.path), "reason": .string($0.reason)]) }),
                "files": .array(files.map { .object(["path": .string($0.path), "state": .string($0.state.rawValue)]) }),
                "modelVersions": modelVersions?.jsonValue ?? .null,
                "externalData": .object(["files": .int(Int64(externalDataFiles)), "bytes": .int(externalDataBytes),
                                         "waiting": .array(externalDataWaits.map(JSONValue.string))]),
                "transfers": transfers.map { status in
                    .object(["offline": .bool(status.offline), "quotaExceeded": .bool(status.quotaExceeded),
                             "waitingUploads": .int(Int64(status.waitingUploads)), "waitingDownloads": .int(Int64(status.waitingDownloads))])
                } ?? .null,
            ]),
        ])
    }

    /// Readable text for people.
    public var text: String {
        let device: [(String, String)] = [
            ("peer", peerID), ("account", account ?? "(signed out)"), ("store", "\(storeKind.rawValue) — \(storeReason)"),
            ("knowledge", knowledge.description.isEmpty ? "(none)" : knowledge.description), ("outbox", "\(outbox) log(s) waiting"),
            ("last import", lastImport.map { ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: $0)) } ?? "never"),
        ]
        var lines = ["Sync state: \(syncState.line)", "Device"] + device.map { "  " + $0.0.padding(toLength: 12, withPad: " ", startingAt: 0) + $0.1 }
        guard storeKind == .account else { return lines.joined(separator: "\n") }
        lines.append("Container")
        lines.append("  encryption: \(encryptionText)")
        for peer in peers {
            let receipt = peer.receipt.map { "receipt \(ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: $0.date)))" } ?? "no receipt"
            lines.append("  \(peer.peerID): \(peer.logCount) log(s), \(peer.logBytes) bytes, up to \(peer.highestLog); \(receipt), \(peer.behind) behind")
        }
        if let baseline {
            // Its date, not its age: a report of a container copied aside stays true.
            let made = ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: baseline.created))
            lines.append("  baseline by \(baseline.author) at \(baseline.knowledge), made \(made), \(baselineBytes) bytes")
        } else {
            lines.append("  baseline: none")
        }
        if let modelVersions {
            lines.append("  model versions:")
            lines += modelVersions.lines.map { "    " + $0 }
        }
        if externalDataFiles > 0 || !externalDataWaits.isEmpty {
            lines.append("  external data: \(externalDataFiles) file(s), \(externalDataBytes) bytes")
            lines += externalDataWaits.map { "  waiting: \($0)" }
        }
        lines.append("  quarantined: \(quarantined.isEmpty ? "none" : quarantined.map { "\($0.path) (\($0.reason))" }.joined(separator: "; "))")
        if let transfers {
            let condition = [transfers.offline ? "offline" : nil, transfers.quotaExceeded ? "over its iCloud quota" : nil].compactMap { $0 }
            lines.append("  transfers: \(transfers.waitingUploads) upload(s) and \(transfers.waitingDownloads) download(s) waiting\(condition.isEmpty ? "" : "; " + condition.joined(separator: ", "))")
        }
        lines.append("Files")
        lines += files.map { "  \($0.state.rawValue.padding(toLength: 16, withPad: " ", startingAt: 0)) \($0.path)" }
        return lines.joined(separator: "\n")
    }
}
