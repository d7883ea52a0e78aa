import UbiquityCore

/// A baseline file as the protocol sees it: where it lies and which transactions it holds.
package struct BaselineCandidate: Sendable, Equatable {
    /// The file's name in the baseline folder: `baseline.zip`, or a file-sync engine's
    /// conflict copy of it.
    package let name: String
    /// Whether it lies under the name (`baseline.zip`) rather than being a conflict copy.
    package let isAtName: Bool
    /// The transactions its state holds.
    package let knowledge: KnowledgeVector
    /// What tells this file's content from any other (its state's checksum).
    package let contentID: String
    /// The conflict copies its author had joined when it rolled it (`identity` of each): it was
    /// written after them, and holds all they hold.
    package let resolves: Set<String>

    package init(name: String, isAtName: Bool, knowledge: KnowledgeVector, contentID: String, resolves: Set<String> = []) {
        self.name = name
        self.isAtName = isAtName
        self.knowledge = knowledge
        self.contentID = contentID
        self.resolves = resolves
    }

    /// A conflict copy as a later baseline records it: its name and its content.
    package var identity: String { name + "|" + contentID }
}

/// A visible log a store has not imported, as a roll judges it: its author, its number, and the
/// knowledge it was written at (`nil` when the file could not be read).
package struct PendingLog: Sendable, Equatable {
    package let peer: String
    package let number: Int64
    package let knowledge: KnowledgeVector?

    package init(peer: String, number: Int64, knowledge: KnowledgeVector?) {
        self.peer = peer
        self.number = number
        self.knowledge = knowledge
    }
}

/// What a peer knows of another peer from its receipt: what it has applied, and what the
/// baselines it sees hold.
package struct ReceiptView: Sendable, Equatable {
    package let knowledge: KnowledgeVector
    package let baselineView: KnowledgeVector

    package init(knowledge: KnowledgeVector, baselineView: KnowledgeVector) {
        self.knowledge = knowledge
        self.baselineView = baselineView
    }
}

/// The decisions of the baseline protocol (Docs/Lifecycle.md, "The rule"), as pure
/// functions of what one peer sees on its machine. The sync engine and the exhaustive protocol
/// check (`ProtocolModel` in UbiquitySimulation) both call these, so the check verifies the
/// rules the engine runs.
///
/// The rule, in short: a store's knowledge and the baselines it sees only ever grow. A store
/// never replaces its state by a baseline; it *joins* every baseline it needs (the merge state
/// is a join-semilattice: slots by stamp, tombstones by union), and it reads every baseline file
/// it sees, conflict copies included. Receipts therefore report facts that stay true, and a
/// log deleted on the strength of them is never needed again.
package enum BaselineProtocol {
    /// Everything the visible baselines hold together.
    package static func view(of candidates: [BaselineCandidate]) -> KnowledgeVector {
        var view = KnowledgeVector()
        for candidate in candidates { view.formMaximum(candidate.knowledge) }
        return view
    }

    /// The baselines a store joins: each that holds a transaction the store lacks whose log,
    /// or a log between it and what the store knows of that peer, is not in the container (the
    /// store could never import it). A store that holds nothing joins every baseline it lacks:
    /// one archive is cheaper than every log.
    package static func baselinesToJoin(knowledge: KnowledgeVector, holdsNothing: Bool, candidates: [BaselineCandidate],
                                        hasLog: (String, Int64) -> Bool) -> [BaselineCandidate] {
        var knowledge = knowledge
        var chosen: [BaselineCandidate] = []
        // The largest first: after it, the others often hold nothing new.
        for candidate in candidates.sorted(by: Self.isLarger) where !knowledge.dominates(candidate.knowledge) {
            let needed = holdsNothing || candidate.knowledge.entries.contains { peer, number in
                knowledge[peer] < number && ((knowledge[peer] + 1)...number).contains { !hasLog(peer, $0) }
            }
            guard needed else { continue }
            chosen.append(candidate)
            knowledge.formMaximum(candidate.knowledge)
        }
        return chosen
    }

    /// Whether a peer may roll a baseline: it holds everything every visible baseline holds and
    /// has imported every visible log, so what it writes holds everything anyone can see here —
    /// and the roll adds something: transactions no baseline holds, or copies to resolve.
    package static func mayRoll(knowledge: KnowledgeVector, candidates: [BaselineCandidate], hasUnimportedLog: Bool) -> Bool {
        !hasUnimportedLog && candidates.allSatisfy { knowledge.dominates($0.knowledge) }
            && (!view(of: candidates).dominates(knowledge) || !unresolvedCopies(candidates).isEmpty)
    }

    /// What a new roll records as resolved: every conflict copy it sees (it holds them all,
    /// `mayRoll` made sure).
    package static func resolvedByRoll(_ candidates: [BaselineCandidate]) -> Set<String> {
        Set(candidates.filter { !$0.isAtName }.map(\.identity))
    }

    /// Whether a baseline holding `knowledge` may replace the file at the name (asked again
    /// under the baseline lock, just before the rename): only one it holds entirely.
    package static func mayReplace(_ knowledge: KnowledgeVector, current: BaselineCandidate?) -> Bool {
        guard let current else { return true }
        return knowledge.dominates(current.knowledge) && knowledge != current.knowledge
    }

    /// Peers with transactions the store holds that neither a visible baseline nor the visible
    /// logs hold (a conflict copy was lost, a baseline damaged): a roll is due at once, whatever
    /// the thresholds, so nobody who joins later lacks them.
    package static func strandedPeers(knowledge: KnowledgeVector, view: KnowledgeVector, hasLog: (String, Int64) -> Bool) -> [String] {
        knowledge.entries.keys.sorted().filter { peer in
            knowledge[peer] > view[peer] && ((view[peer] + 1)...knowledge[peer]).contains { !hasLog(peer, $0) }
        }
    }

    /// The pending logs a store holding `knowledge` could still import from the visible files:
    /// each whose predecessors it holds or could import, and whose knowledge asks only for
    /// transactions it holds or could import. The others wait on a transaction no visible log
    /// holds (collected under a baseline since destroyed), which only a baseline could bring:
    /// they must not hold back the roll that would publish what the store holds, or two peers
    /// each lacking a transaction of the other's wait for each other for good. (The joins come
    /// first: a visible baseline holding such a transaction is joined, or the roll waits for it.)
    /// A log whose knowledge could not be read counts as importable once its predecessor is.
    package static func importableLogs(knowledge: KnowledgeVector, pending: [PendingLog]) -> [PendingLog] {
        var reach = knowledge
        var left = pending.sorted { ($0.peer, $0.number) < ($1.peer, $1.number) }
        var importable: [PendingLog] = []
        var progress = true
        // Each pass takes every log that applies on top of what the passes before took; in
        // (author, number) order one pass takes an author's whole run.
        while progress {
            progress = false
            left.removeAll { log in
                let applies = log.number == reach[log.peer] + 1
                    && (log.knowledge?.entries.allSatisfy { $0.key == log.peer || reach[$0.key] >= $0.value } ?? true)
                guard applies else { return false }
                reach[log.peer] = log.number
                importable.append(log)
                progress = true
                return true
            }
        }
        return importable
    }

    /// Conflict copies the baseline under the name does not record as resolved: a roll by a peer
    /// that joined them resolves them.
    package static func unresolvedCopies(_ candidates: [BaselineCandidate]) -> [BaselineCandidate] {
        let atName = candidates.first { $0.isAtName }
        return candidates.filter { copy in !copy.isAtName && !(atName.map { resolves($0, copy) } ?? false) }
    }

    /// Conflict copies that may be deleted: the baseline under the name was rolled by a peer
    /// that had joined the copy (it records it) and so holds all it holds. Holding it is not
    /// enough: the file under the name may be the stale loser of the very conflict that made
    /// the copy, about to be overwritten by the winner — the copy is then all that keeps it.
    /// (ubiq protocol check found that one.)
    package static func redundantCopies(_ candidates: [BaselineCandidate]) -> [BaselineCandidate] {
        guard let atName = candidates.first(where: { $0.isAtName }) else { return [] }
        return candidates.filter { !$0.isAtName && resolves(atName, $0) }
    }

    /// Whether the baseline under the name records `copy` as resolved, and holds all it holds.
    private static func resolves(_ atName: BaselineCandidate, _ copy: BaselineCandidate) -> Bool {
        atName.resolves.contains(copy.identity) && atName.knowledge.dominates(copy.knowledge)
    }

    /// Whether `author` may delete its own log `number`: a visible baseline holds it, and every
    /// other peer whose folder is visible has applied it and sees a baseline holding it — or
    /// the log is older than the grace period (a peer gone for good must not block collection
    /// forever; a baseline still holds the transaction).
    package static func mayCollect(author: String, number: Int64, view: KnowledgeVector, receipts: [ReceiptView],
                                   peersWithoutReceipt: Int, olderThanGracePeriod: Bool) -> Bool {
        guard view[author] >= number else { return false }
        if olderThanGracePeriod { return true }
        return peersWithoutReceipt == 0
            && receipts.allSatisfy { min($0.knowledge[author], $0.baselineView[author]) >= number }
    }

    /// The highest number `mayCollect` lets `author` delete by the receipts (not by age): it
    /// says yes for every number up to it and no above it; `nil` when it says no to all. One
    /// look at each receipt per collection instead of one per log.
    package static func collectableByReceipts(author: String, view: KnowledgeVector, receipts: [ReceiptView], peersWithoutReceipt: Int) -> Int64? {
        guard peersWithoutReceipt == 0 else { return nil }
        return receipts.reduce(view[author]) { min($0, $1.knowledge[author], $1.baselineView[author]) }
    }

    /// A total order on baselines, the same on every machine: more transactions first, then the
    /// knowledge's text, then the file name.
    static func isLarger(_ a: BaselineCandidate, _ b: BaselineCandidate) -> Bool {
        let (sa, sb) = (a.knowledge.entries.values.reduce(0, +), b.knowledge.entries.values.reduce(0, +))
        if sa != sb { return sa > sb }
        if a.knowledge.description != b.knowledge.description { return a.knowledge.description < b.knowledge.description }
        return a.name < b.name
    }
}
