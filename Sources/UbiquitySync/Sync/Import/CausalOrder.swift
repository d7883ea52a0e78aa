import UbiquityCore

/// The causal order of admitted logs, from their headers alone (Docs/SyncSemantics.md): a log
/// comes once its author's previous log has, and the knowledge so far covers everything else
/// its author had seen. Pure: it reads no store and no file.
package struct CausalOrder: Sendable, Equatable {
    /// What the order needs of a log: who wrote it, and what its author had seen.
    package struct Header: Sendable, Equatable {
        package let id: LogID
        package let knowledge: KnowledgeVector

        package init(_ id: LogID, knowledge: KnowledgeVector) {
            (self.id, self.knowledge) = (id, knowledge)
        }
    }

    /// The logs that can apply, in the order they apply.
    package let order: [LogID]
    /// The knowledge once they all have.
    package let knowledge: KnowledgeVector
    /// The logs left waiting, by author and number.
    package let waiting: [LogID]
    /// For each author with logs left waiting, the predecessor they wait for when it is not
    /// among the logs (missing); an author absent here waits for other peers' transactions.
    package let missing: [String: Int64]

    /// Orders `headers` after `knowledge`. Of two headers with one ID the first counts. Authors
    /// are taken in the order of their IDs, each as far as it goes, until none can go further.
    package init(_ headers: [Header], after knowledge: KnowledgeVector) {
        var left: [LogID: KnowledgeVector] = [:]
        for header in headers where left[header.id] == nil { left[header.id] = header.knowledge }
        let peers = Set(left.keys.map(\.peer)).sorted()
        var known = knowledge, order: [LogID] = []
        var progress = true
        while progress {
            progress = false
            for peer in peers {
                while let next = left[LogID(peer, known[peer] + 1)], known.dominates(next.removing(peer)) {
                    let id = LogID(peer, known[peer] + 1)
                    order.append(id)
                    known[peer] = id.number
                    left[id] = nil
                    progress = true
                }
            }
        }
        self.order = order
        self.knowledge = known
        waiting = left.keys.sorted()
        missing = Self.missing(waiting, after: known)
    }

    /// For each author of `waiting`, its next transaction after `knowledge` when that is not
    /// among `waiting`: the predecessor its logs wait for.
    package static func missing(_ waiting: some Sequence<LogID>, after knowledge: KnowledgeVector) -> [String: Int64] {
        let ids = Set(waiting)
        var missing: [String: Int64] = [:]
        for peer in Set(ids.map(\.peer)) where !ids.contains(LogID(peer, knowledge[peer] + 1)) {
            missing[peer] = knowledge[peer] + 1
        }
        return missing
    }
}
