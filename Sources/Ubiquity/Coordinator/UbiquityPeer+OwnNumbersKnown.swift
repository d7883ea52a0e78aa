import Foundation
import UbiquityBase
import UbiquityCore
import UbiquitySync

/// What changed in the container since the last check of this peer's own numbers
/// (`UbiquityPeer.lookForOwnNumbers`): what the check reads after it, it reads as it is then.
struct OwnNumbersLook {
    let memo: OwnNumbersMemo
    let own: FolderFollower.News
    let receipts: FolderFollower.News
    let baselines: FolderFollower.News
    /// The store's content epoch at the look.
    let epoch: String?
}

// The highest own number the container knows of comes from three places, each read again
// only where it changed (`OwnNumbersMemo`): the own log folder, every receipt, the baselines.
extension UbiquityPeer {
    /// Looks at what changed since the last check: everything, at the first, or when the
    /// store's content epoch, quarantine or encryption changed.
    func lookForOwnNumbers(_ location: ContainerLocation) -> OwnNumbersLook {
        let memo = ownNumbers ?? OwnNumbersMemo(location: location, peerID: peerID)
        let now = Date().timeIntervalSince1970
        let epoch = try? store.contentEpoch()
        let context = OwnNumbersMemo.Context(epoch: epoch, quarantineChanges: store.quarantineChanges, sealing: location.sealing.state)
        let stale = memo.context != context
        memo.context = context
        return OwnNumbersLook(
            memo: memo,
            own: memo.ownFolder.look(following: [], force: stale, now: now),
            receipts: memo.receiptFolders.look(following: memo.receiptLeaves, force: stale, now: now),
            baselines: memo.baselineFolder.look(following: [location.baselineDirectory], force: stale, now: now),
            epoch: epoch)
    }

    /// The highest transaction number of this peer the container knows of: its own logs, what
    /// the baselines hold of it, and what each receipt (its own too) says was applied of it —
    /// the receipts still know of logs collected into a baseline the store cannot see, or not
    /// yet delivered to this machine. Reads again only what `look` says changed since the
    /// check before; `scan`: a listing made after `look`, read instead of the folders;
    /// `unsent`: the store's pending outbox.
    func highestOwnNumberKnown(_ location: ContainerLocation, after look: OwnNumbersLook, scan: ContainerScan?, unsent: [OutboxEntry]) -> Int64 {
        let memo = look.memo
        let taken = store.ownNumbersTaken
        var listOwnFolder = look.own.arrivals == nil, readOwnReceipt = listOwnFolder
        if let arrivals = look.own.arrivals, !arrivals.isEmpty {
            let unsentNames = Dictionary(unsent.map { ($0.number, $0.fileName) }, uniquingKeysWith: { first, _ in first })
            for name in arrivals {
                switch ownArrival(name, location, taken: taken, unsent: unsentNames) {
                case .nothing: continue
                case .receipt: readOwnReceipt = true
                case .logs: listOwnFolder = true
                }
            }
        }
        let listed = scan.map(ownEntries)
        if listOwnFolder { memo.ownLogs = ownLogs(location, above: taken, entries: listed).map(\.number).max() ?? 0 }
        if readOwnReceipt { memo.ownReceipt = receiptKnowledge(of: peerID, location, epoch: look.epoch, scan: scan) }
        readReceipts(location, changed: look.receipts.changed, epoch: look.epoch, scan: scan, into: memo)
        if !look.baselines.isQuiet { memo.baselineView = makeBaseliner(location).catalog().view[peerID] }
        return memo.floor(taken: taken)
    }

    /// What a name that came into the own folder may change of what the check found.
    private enum OwnArrival { case nothing, receipt, logs }

    /// Nothing for a file the check never reads (a temporary, a transfer, anything not a log
    /// or the receipt) and for a log, or a copy of one, numbered at or below the numbers the
    /// store took — this peer's own writes, which the check never counts — unless the log
    /// holds an unsent save's number under another name.
    private func ownArrival(_ name: String, _ location: ContainerLocation, taken: Int64, unsent: [Int64: String]) -> OwnArrival {
        switch ContainerEntry.classify(name, type: .regular, in: .logs, of: location) {
        case let .log(number):
            return number > taken || unsent[number].map({ $0 != name }) == true ? .logs : .nothing
        case let .duplicateCopy(original):
            return (TransactionLog.transactionNumber(inFileName: original) ?? 0) > taken ? .logs : .nothing
        case .receipt:
            return .receipt
        default:
            return .nothing
        }
    }

    /// Reads again the other peers' receipts in the log folders that `changed` (of those
    /// `memo` knows), or all of them when the peers may have changed (the root, a folder not
    /// known, `nil`: anything).
    private func readReceipts(_ location: ContainerLocation, changed: Set<String>?, epoch: String?, scan: ContainerScan?, into memo: OwnNumbersMemo) {
        guard changed?.isEmpty != true else { return }
        if let changed, changed.allSatisfy({ memo.receipts[$0] != nil }) {
            for folder in changed { memo.receipts[folder]!.knows = receiptKnowledge(of: memo.receipts[folder]!.peerID, location, epoch: epoch, scan: scan) }
            return
        }
        let peers = scan.map { $0.peerFolders.map(\.peerID) } ?? ContainerScan.peers(of: location)
        memo.receipts = [:]
        for peer in peers where peer != peerID {
            memo.receipts[location.logDirectory(of: peer)] = (peer, receiptKnowledge(of: peer, location, epoch: epoch, scan: scan))
        }
        memo.receiptLeaves = Set(memo.receipts.keys).union([location.ubiquityRoot])
    }

    /// What `peer`'s receipt of this content epoch says was applied of this peer, it or its
    /// baseline: from `scan`'s listing, or read by its path. A receipt of removed content, or
    /// one another peer wrote in its place, says nothing.
    private func receiptKnowledge(of peer: String, _ location: ContainerLocation, epoch: String?, scan: ContainerScan?) -> Int64 {
        let receipt = scan.map { scan in
            scan.peerFolders.first { $0.peerID == peer }?.entries.first { $0.kind == .receipt }.flatMap {
                location.caches.receipts.receipt(listed: $0, of: location, limit: 1 << 20)
            }
        } ?? location.caches.receipts.receipt(at: location.receiptPath(of: peer), of: location, limit: 1 << 20)
        guard let receipt, receipt.peerID == peer, receipt.contentEpoch == epoch else { return 0 }
        return max(receipt.knowledge[peerID], receipt.baselineKnowledge?[peerID] ?? 0)
    }
}
