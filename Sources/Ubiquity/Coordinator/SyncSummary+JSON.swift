extension SyncSummary {
    /// `{exported, applied, inserted, updated, deleted, waiting, quarantined, outbox, kv, signedOut,
    /// contentRemoved, adoptedBaseline?, baselineRolled, deletedLogs, exportError?}`
    public var jsonValue: JSONValue {
        var fields: [String: JSONValue] = [
            "exported": .int(Int64(exported)), "applied": .int(Int64(imported.applied.count)),
            "inserted": .array(imported.changes.inserted.sorted().map { .string($0.description) }),
            "updated": .array(imported.changes.updated.sorted().map { .string($0.description) }),
            "deleted": .array(imported.changes.deleted.sorted().map { .string($0.description) }),
            "waiting": .int(Int64(imported.waiting)),
            "quarantined": .array(imported.quarantined.map { .object(["path": .string($0.path), "reason": .string($0.reason)]) }),
            "outbox": .int(Int64(outboxPending)), "kv": .string(knowledge.description),
            "signedOut": .bool(signedOut), "contentRemoved": .bool(contentRemoved),
            "baselineRolled": .bool({ if case .rolled? = baseline { return true } else { return false } }()),
            "deletedLogs": .int(Int64(garbage?.deleted.count ?? 0)),
        ]
        if let adoptedBaseline { fields["adoptedBaseline"] = .string(adoptedBaseline) }
        if let exportError { fields["exportError"] = .string(exportError) }
        return .object(fields)
    }
}
