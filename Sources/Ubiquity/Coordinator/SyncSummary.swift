import Foundation
import UbiquityBase
import UbiquityCore
import UbiquitySync

/// What a peer tells its subscribers.
public enum PeerEvent: Sendable, Equatable {
    /// Logs of other peers were imported; the changed object IDs as this store sees them.
    case didImport(ObjectChanges)
    /// Another peer removed the content: the store is about to be emptied (the app's last
    /// chance to look at it), then it was.
    case storeWillReset
    case storeDidReset
}

/// The result of one `sync()`.
public struct SyncSummary: Sendable, Equatable {
    public var exported = 0
    /// Own logs written again from this peer's copy: found damaged in the container, or
    /// collected while the current baseline lacks them (a file-sync tool kept an older one).
    public var repaired: [Int64] = []
    public var imported = ImportReport()
    /// Local logs still waiting in the outbox (the container refused them).
    public var outboxPending = 0
    /// Why the export step failed; the outbox keeps what it could not write.
    public var exportError: SyncError?
    /// Why the import step (joining baselines, importing logs) failed, when `sync` was asked to
    /// report it rather than throw; the round ended there.
    public var importError: SyncFailure?
    public var knowledge = KnowledgeVector()
    public var signedOut = false
    /// Another peer removed the content; this store started over empty (or, with `carried`, on
    /// what it held).
    public var contentRemoved = false
    /// Another peer removed the content at the same time as this store's own removal, and its
    /// removal won: the objects this store held, all saved after its own removal, were saved
    /// again into the winner's content (Docs/Lifecycle.md, "Two removals at once").
    public var carried: Int?
    /// The key record was found altered (`KeyRecordAlteration`) while this device holds the
    /// key: what was done, or why it is left for `repairKeyRecord(passphrase:)`.
    public var keyRecordAltered: Advice?
    /// The author of the baseline this store started from in this sync, if it did.
    public var adoptedBaseline: String?
    public var baseline: BaselineDecision?
    public var garbage: GarbageReport?
    /// External data files deleted from the cloud because nothing names them any more.
    public var externalDataGarbage: ExternalDataGarbageReport?

    /// One line for people: `exported 2, imported 5 (3 inserted, 1 updated, 0 deleted), 0 waiting, 0 quarantined`.
    public var line: String { line(wordingRemedies: \.description) }

    /// `line`, with the remedies it names worded by `word` (a tool's own commands).
    public func line(wordingRemedies word: (Remedy) -> String) -> String {
        if signedOut { return "signed out: working on the local store, nothing to sync" }
        var text = !contentRemoved ? ""
            : carried.map { "content removed by another peer at the same time as here: its content won, and the \($0) object(s) saved here since were carried into it; " }
            ?? "content removed by another peer: started over empty; "
        if let adoptedBaseline { text += "started from the baseline of \(adoptedBaseline); " }
        text += "exported \(exported), imported \(imported.applied.count) (\(imported.changes.inserted.count) inserted, \(imported.changes.updated.count) updated, \(imported.changes.deleted.count) deleted), \(imported.waiting) waiting, \(imported.quarantined.count) quarantined"
        if outboxPending > 0 { text += ", \(outboxPending) in outbox" }
        if !repaired.isEmpty { text += ", repaired damaged log(s) \(repaired.map(String.init).joined(separator: ", "))" }
        if case .rolled? = baseline { text += ", rolled a baseline" }
        if let deleted = garbage?.deleted.count, deleted > 0 { text += ", deleted \(deleted) old log(s)" }
        if let deleted = externalDataGarbage?.deleted.count, deleted > 0 { text += ", deleted \(deleted) external data file(s)" }
        if let exportError { text += " — export failed: " + exportError.advice.worded(word) }
        if let importError { text += " — import failed: \(importError)" }
        if let keyRecordAltered { text += " — " + keyRecordAltered.worded(word) }
        return text
    }
}

extension SyncSummary {
    /// `{exported, applied, inserted, updated, deleted, waiting, quarantined, outbox, repaired, kv, signedOut,
    /// contentRemoved, carried?, adoptedBaseline?, baselineRolled, deletedLogs, exportError?, importError?, keyRecordAltered?}`
    public var jsonValue: JSONValue {
        var fields: [String: JSONValue] = [
            "exported": .int(Int64(exported)), "applied": .int(Int64(imported.applied.count)),
            "inserted": .array(imported.changes.inserted.sorted().map { .string($0.description) }),
            "updated": .array(imported.changes.updated.sorted().map { .string($0.description) }),
            "deleted": .array(imported.changes.deleted.sorted().map { .string($0.description) }),
            "waiting": .int(Int64(imported.waiting)),
            "quarantined": .array(imported.quarantined.map { .object(["path": .string($0.path), "reason": .string($0.reason)]) }),
            "outbox": .int(Int64(outboxPending)), "kv": .string(knowledge.description),
            "repaired": .array(repaired.map { .int($0) }),
            "signedOut": .bool(signedOut), "contentRemoved": .bool(contentRemoved),
            "baselineRolled": .bool({ if case .rolled? = baseline { return true } else { return false } }()),
            "deletedLogs": .int(Int64(garbage?.deleted.count ?? 0)),
        ]
        if let carried { fields["carried"] = .int(Int64(carried)) }
        if let keyRecordAltered { fields["keyRecordAltered"] = .string(keyRecordAltered.description) }
        if let adoptedBaseline { fields["adoptedBaseline"] = .string(adoptedBaseline) }
        if let exportError { fields["exportError"] = .string(exportError.description) }
        if let importError { fields["importError"] = .string(importError.description) }
        return .object(fields)
    }
}

/// An error that ended a sync step, kept as thrown (`error`); two are equal when they say the
/// same, as a summary compared with another can only tell.
public struct SyncFailure: Error, Sendable, Equatable, CustomStringConvertible {
    public let error: any Error

    public init(_ error: any Error) { self.error = error }

    public var description: String { "\(error)" }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.description == rhs.description }
}
