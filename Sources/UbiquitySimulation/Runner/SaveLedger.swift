import Ubiquity

/// Every save the apps were told succeeded, as the invariant checks need them: which
/// transactions each account's peers must eventually hold, what each fallback store must hand
/// over, which objects may exist at all, and which writes overwrote each other concurrently.
///
/// Saves are kept by account and content epoch: numbers start again after a removal, and a
/// removal wins over what was saved in the content it removed (the checks look only at the
/// epoch the cloud is in).
struct SaveLedger {
    /// An account's content between two removals.
    struct Content: Hashable, Comparable {
        let account: String
        let epoch: String?

        static func < (lhs: Content, rhs: Content) -> Bool { (lhs.account, lhs.epoch ?? "") < (rhs.account, rhs.epoch ?? "") }
    }

    /// Saved transactions of one peer in one content: numbers still to check.
    struct PeerRecord {
        var device: String
        var first: Int64
        var highest: Int64
        /// The highest transaction saved on each model version (numbers go on across versions).
        var highestByVersion: [String: Int64] = [:]
    }

    private(set) var contents: [Content: [String: PeerRecord]] = [:]
    /// Fallback saves not yet handed over: device → account → object → attribute → JSON text.
    private(set) var fallbackValues: [String: [String: [String: [String: String]]]] = [:]
    /// Objects deleted in a fallback before the handover: device → account → objects.
    private(set) var fallbackDeletes: [String: [String: Set<String>]] = [:]
    /// Objects any save of the account inserted: nothing else may ever be alive there.
    private(set) var inserted: [String: Set<String>] = [:]
    /// Objects any save of the account deleted.
    private(set) var deleted: [String: Set<String>] = [:]
    /// Attribute writes of account stores, for the conflict check.
    private(set) var writes: [Content: [AttributeWrite]] = [:]
    /// Objects written through a fallback (their migrated writes are not in `writes`).
    private(set) var migratedObjects: [String: Set<String>] = [:]
    /// Properties each object had written by an update (not its insert), by account.
    private(set) var updatedProperties: [String: [String: Set<String>]] = [:]
    private(set) var count = 0

    struct AttributeWrite {
        let gid: String
        let attribute: String
        let stamp: String
        let peerID: String
        let number: Int64
        let knowledge: KnowledgeVector
        /// JSON text of the value written.
        let value: String
    }

    mutating func record(_ save: SavedTransaction) {
        count += 1
        let account = save.account ?? "(local)"
        for write in save.writes {
            if write.inserted { inserted[account, default: []].insert(write.gid) }
            if write.deleted { deleted[account, default: []].insert(write.gid) }
            if !write.inserted, !write.deleted { updatedProperties[account, default: [:]][write.gid, default: []].formUnion(write.values.keys) }
        }
        switch save.storeKind {
        case .account:
            let content = Content(account: account, epoch: save.contentEpoch)
            var record = contents[content]?[save.peerID] ?? PeerRecord(device: save.device, first: save.number, highest: save.number)
            record.highest = max(record.highest, save.number)
            if let version = save.modelHash { record.highestByVersion[version] = max(record.highestByVersion[version] ?? 0, save.number) }
            contents[content, default: [:]][save.peerID] = record
            let knowledge = KnowledgeVector(string: save.knowledge) ?? KnowledgeVector()
            for write in save.writes where !write.deleted {
                for (attribute, value) in write.values {
                    writes[content, default: []].append(AttributeWrite(gid: write.gid, attribute: attribute, stamp: save.stamp, peerID: save.peerID,
                                                                       number: save.number, knowledge: knowledge, value: value))
                }
            }
        case .fallback:
            migratedObjects[account, default: []].formUnion(save.writes.map(\.gid))
            for write in save.writes {
                if write.deleted {
                    fallbackValues[save.device]?[account]?[write.gid] = nil
                    fallbackDeletes[save.device, default: [:]][account, default: []].insert(write.gid)
                } else {
                    fallbackDeletes[save.device]?[account]?.remove(write.gid)
                    fallbackValues[save.device, default: [:]][account, default: [:]][write.gid, default: [:]].merge(write.values) { $1 }
                }
            }
        case .local:
            break
        }
    }

    /// The fallback saves of `device` for `account`, taken out once the handover was checked.
    mutating func takeFallback(device: String, account: String) -> (values: [String: [String: String]], deletes: Set<String>) {
        defer {
            fallbackValues[device]?[account] = nil
            fallbackDeletes[device]?[account] = nil
        }
        return (fallbackValues[device]?[account] ?? [:], fallbackDeletes[device]?[account] ?? [])
    }

    /// Transactions up to `number` of `peer` are covered by a baseline: their files may go.
    mutating func covered(_ content: Content, peer: String, upTo number: Int64) {
        guard var record = contents[content]?[peer], number >= record.first else { return }
        record.first = number + 1
        contents[content]?[peer] = record
    }
}
