import Ubiquity

/// Every save the apps were told succeeded, as the invariant checks need them: which
/// transactions each account's peers must eventually hold, what each fallback store must hand
/// over, which objects may exist at all, and which writes overwrote each other concurrently.
struct SaveLedger {
    /// Saved transactions of account stores: account → peer → numbers still to check.
    struct PeerRecord {
        var device: String
        var first: Int64
        var highest: Int64
    }

    private(set) var accounts: [String: [String: PeerRecord]] = [:]
    /// Fallback saves not yet handed over: device → account → object → attribute → JSON text.
    private(set) var fallbackValues: [String: [String: [String: [String: String]]]] = [:]
    /// Objects deleted in a fallback before the handover: device → account → objects.
    private(set) var fallbackDeletes: [String: [String: Set<String>]] = [:]
    /// Objects any save of the account inserted: nothing else may ever be alive there.
    private(set) var inserted: [String: Set<String>] = [:]
    /// Objects any save of the account deleted.
    private(set) var deleted: [String: Set<String>] = [:]
    /// Attribute writes of account stores, for the conflict check.
    private(set) var writes: [String: [AttributeWrite]] = [:]
    /// Objects written through a fallback (their migrated writes are not in `writes`).
    private(set) var migratedObjects: [String: Set<String>] = [:]
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
        }
        switch save.storeKind {
        case .account:
            var record = accounts[account]?[save.peerID] ?? PeerRecord(device: save.device, first: save.number, highest: save.number)
            record.highest = max(record.highest, save.number)
            accounts[account, default: [:]][save.peerID] = record
            let knowledge = KnowledgeVector(string: save.knowledge) ?? KnowledgeVector()
            for write in save.writes where !write.deleted {
                for (attribute, value) in write.values {
                    writes[account, default: []].append(AttributeWrite(gid: write.gid, attribute: attribute, stamp: save.stamp, peerID: save.peerID,
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

    /// The content of `account` was removed: what was saved before is gone on purpose.
    mutating func contentRemoved(account: String) {
        accounts[account] = nil
        writes[account] = nil
    }

    /// `device` started over on an empty store (it noticed a content removal): its saves made
    /// since the removal went with it.
    mutating func storeReset(device: String, account: String) {
        accounts[account] = accounts[account]?.filter { $0.value.device != device }
        let peers = Set((accounts[account] ?? [:]).keys)
        writes[account] = writes[account]?.filter { peers.contains($0.peerID) }
    }

    /// Transactions up to `number` of `peer` are covered by a baseline: their files may go.
    mutating func covered(account: String, peer: String, upTo number: Int64) {
        guard var record = accounts[account]?[peer], number >= record.first else { return }
        record.first = number + 1
        accounts[account]?[peer] = record
    }
}
