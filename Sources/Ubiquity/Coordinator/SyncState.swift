import Foundation
import UbiquitySync

/// The answer to "am I synced?" that an app can show (`UbiquitousStoreCoordinator.syncState`):
/// what the last round of sync found, or that one is running.
public enum SyncState: Sendable, Equatable, Codable {
    /// No round has run on this store yet.
    case starting
    /// The store the app works on does not sync: signed out (the local store), or a first
    /// launch's fallback store while the initial import builds the account store.
    case notSyncing(NotSyncing)
    /// A round of sync is running (and has not begun importing, or has nothing to import).
    case syncing
    /// A round of sync is importing other peers' logs: `done` of the `of` it found. Within a
    /// round neither number goes down; the round's result follows it.
    case importing(done: Int, of: Int)
    /// The last round, at `date`, exported every save and imported everything in the cloud
    /// that this store can apply.
    case upToDate(since: Date)
    /// Logs in the cloud wait for files that have not arrived yet (a file-sync engine still
    /// carrying them): which, from whom, since when. Nothing needs doing but patience.
    case waiting([SyncWait])
    /// Sync cannot go on until something is done (the reason says what).
    case blocked(SyncBlock)

    public enum NotSyncing: Sendable, Equatable, Codable {
        case signedOut
        case initialImport
    }

    /// One line for people, as `ubiq status` prints it first.
    public var line: String {
        switch self {
        case .starting: return "not synced yet"
        case .notSyncing(.signedOut): return "not syncing: signed out, working on the local store"
        case .notSyncing(.initialImport): return "not syncing yet: the initial import is building the account store"
        case .syncing: return "syncing"
        case let .importing(done, total): return "syncing: importing \(done) of \(total) logs"
        case let .upToDate(since): return "up to date (as of \(ISO8601DateFormatter().string(from: since)))"
        case let .waiting(waits): return "waiting for " + waits.map(\.line).joined(separator: "; ")
        case let .blocked(block): return "blocked: \(block.line)"
        }
    }
}

/// A file that later logs wait for.
public struct SyncWait: Sendable, Equatable, Codable {
    public enum Kind: Sendable, Equatable, Codable {
        /// The log of transaction `number`.
        case log
        /// The external data file (by its SHA-256) that transaction `number` names.
        case externalData(sha256: String)
    }

    public let kind: Kind
    /// The peer that wrote it.
    public let peerID: String
    public let number: Int64
    /// When the oldest log waiting behind it arrived (`nil`: not known).
    public let since: Date?

    public var line: String {
        let since = since.map { " since \(ISO8601DateFormatter().string(from: $0))" } ?? ""
        switch kind {
        case .log: return "transaction \(number) of \(peerID)\(since)"
        case let .externalData(sha256): return "external data \(sha256) of transaction \(number) of \(peerID)\(since)"
        }
    }
}

/// Why sync cannot go on.
public enum SyncBlock: Sendable, Equatable, Codable {
    /// The content is encrypted and this device holds no key (`unlockEncryption`).
    case noKey
    /// The content's key record is gone or altered; saves wait in the outbox.
    case keyRecord(String)
    /// A file a peer wrote is damaged: its later logs wait until its author writes it again.
    case damagedFile(peerID: String, number: Int64, reason: String)
    /// The cloud refuses this device's writes (full, read-only, not a folder); the outbox keeps the saves.
    case exportFailing(String)
    /// A round failed otherwise.
    case failing(String)

    public var line: String {
        switch self {
        case .noKey: return "the content is encrypted and this device holds no key: unlock it with the passphrase"
        case let .keyRecord(reason): return reason
        case let .damagedFile(peerID, number, reason): return "transaction \(number) of \(peerID) is damaged (\(reason)); its later logs wait until \(peerID) writes it again"
        case let .exportFailing(reason): return "saves cannot be written into the cloud: \(reason)"
        case let .failing(reason): return reason
        }
    }
}

extension SyncState {
    /// What a round that returned `summary` at `date` found.
    package init(_ summary: SyncSummary, at date: Date) {
        if summary.signedOut {
            self = .notSyncing(.signedOut)
        } else if let damaged = summary.imported.missingPredecessors.first(where: { $0.quarantineReason != nil }) {
            self = .blocked(.damagedFile(peerID: damaged.peerID, number: damaged.number, reason: damaged.quarantineReason ?? ""))
        } else if let wait = summary.imported.missingExternalData.first(where: { $0.damage != nil }) {
            self = .blocked(.damagedFile(peerID: wait.peerID, number: wait.number, reason: "its external data file is damaged: \(wait.damage ?? "")"))
        } else if let exportError = summary.exportError {
            self = .blocked(.exportFailing(exportError.description))
        } else if let importError = summary.importError {
            self = .blocked(.failing(importError.description))
        } else if summary.imported.locked > 0 {
            self = .blocked(.noKey)
        } else {
            let waits = summary.imported.missingPredecessors.map {
                SyncWait(kind: .log, peerID: $0.peerID, number: $0.number, since: $0.waitingSince)
            } + summary.imported.missingExternalData.map {
                SyncWait(kind: .externalData(sha256: $0.sha256), peerID: $0.peerID, number: $0.number, since: nil)
            }
            self = waits.isEmpty ? .upToDate(since: date) : .waiting(waits)
        }
    }

    /// What a round that threw `error` found.
    package init(failure error: any Error) {
        switch error {
        case SyncError.encryptedWithoutKey: self = .blocked(.noKey)
        case SyncError.keyRecordMissing, SyncError.keyRecordAltered: self = .blocked(.keyRecord("\(error)"))
        case SyncError.containerUnwritable: self = .blocked(.exportFailing("\(error)"))
        case SyncError.signedOut: self = .notSyncing(.signedOut)
        case SyncError.initialImportPending: self = .notSyncing(.initialImport)
        default: self = .blocked(.failing("\(error)"))
        }
    }
}
