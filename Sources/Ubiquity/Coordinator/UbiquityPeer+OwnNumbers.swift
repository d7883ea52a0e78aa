import Foundation
import UbiquityBase
import UbiquityCore
import UbiquitySync

// A device restored from a backup of its folder: the store is back at an older state, while the
// container holds what it wrote since. Numbering a save from the store's knowledge would write
// a number again, and whichever of the two logs a peer imports, the other's changes are lost.
extension UbiquityPeer {
    /// This peer's own log files in the container numbered above `number` (regular files of
    /// this store's content epoch; a copy of a missing log counts as the log). `entries`: the
    /// own folder's listing, when the caller has one (this sync round's).
    func ownLogs(_ location: ContainerLocation, above number: Int64, entries: [ContainerEntry]? = nil) -> [(name: String, number: Int64)] {
        // Own logs of removed content (saved before this peer heard of a removal, and not yet
        // deleted) are not this content's: their numbers say nothing about the store's.
        let epoch = (try? store.contentEpoch()) ?? nil
        // A file that cannot be read says nothing of its epoch. Without a removal every own file
        // is of this content, so its number is taken. After one it may be a late copy of the
        // removed content, and reserving its number would leave a gap that every peer waits on
        // for good: it counts once it can be read.
        let unreadableCounts = epoch == nil
        let quarantined = unreadableCounts ? (try? store.quarantineSignatures()) ?? [:] : [:]
        let entries = entries ?? ContainerEntry.list(location.logDirectory(of: peerID), as: .logs, of: location)
        let standIns = ContainerEntry.standInCopies(entries)
        return entries.compactMap { entry in
            guard entry.isRegularFile, let found = entry.logNumber ?? standIns[entry.name], found > number else { return nil }
            // A file set aside and unchanged since is not read again, unless its epoch matters.
            if unreadableCounts, let signature = quarantined[location.relativeLogPath(peerID, entry.name)], signature == entry.file?.signature {
                return (entry.name, found)
            }
            guard let named = ContentEpoch.logEpoch(atPath: entry.path, in: location) else {
                return unreadableCounts ? (entry.name, found) : nil
            }
            return named == epoch ? (entry.name, found) : nil
        }
    }

    /// Reserves every own number the container knows of (`highestOwnNumberKnown`), so the
    /// next save goes above, and moves unsent saves that took one of them (saved before this
    /// device could know) above it too: their logs are encoded again with the new numbers,
    /// never written over or beside the files that hold those numbers. Returns the highest
    /// number known. Only what changed since the last check is read again; `look` and `scan`:
    /// a sync round's look (`lookForOwnNumbers`) and the listing it made after, read instead
    /// of the folders. The caller holds the sync lock, or runs before anything else may use
    /// the peer.
    func reserveOwnNumbers(_ location: ContainerLocation, after look: OwnNumbersLook? = nil, scan: ContainerScan? = nil) throws -> Int64 {
        let look = look ?? lookForOwnNumbers(location)
        let pending = try store.pendingOutbox()
        let floor = highestOwnNumberKnown(location, after: look, scan: scan, unsent: pending)
        // Only a store behind what the container knows of it can have saved under a taken
        // number; otherwise a receipt or baseline that knows an unsent number knows this very
        // transaction (a baseline this store rolled holds its unsent saves too).
        let behind = floor > store.knowledge[peerID]
        if try store.reserveOwnNumbers(through: floor) {
            logger.log(.warning, .setupAssistant, "catchUp", "the container holds transactions of this peer up to \(floor), beyond the \(store.knowledge[peerID]) this store applied: later saves are numbered above \(floor)")
        }
        guard let lowest = pending.first?.number, lowest <= floor else { return floor }
        // An unsent log whose own file is there already is that transaction, written before a
        // crash; a log file of its number under another name is another transaction.
        let files = ownLogs(location, above: lowest - 1, entries: scan.map { ownEntries($0) })
        let written = Set(files.map(\.name))
        let otherwise = Set(files.filter { TransactionLog.transactionNumber(inFileName: $0.name) != nil }.map(\.number))
        if let first = pending.first(where: { entry in
            !written.contains(entry.fileName) && (otherwise.contains(entry.number) || behind && entry.number <= floor)
        }) {
            let moves = try store.renumberPendingOutbox(from: first.number, above: floor)
            if let start = moves.first, let end = moves.last {
                logger.log(.warning, .exporter, "exportLog:", "unsent transactions \(start.from)–\(end.from) were saved while the container already held those numbers of this peer: sent as \(start.to)–\(end.to)")
            }
        }
        return floor
    }

    /// The own folder's entries in `scan` (none when it has no folder of this peer).
    func ownEntries(_ scan: ContainerScan) -> [ContainerEntry] {
        scan.peerFolders.first { $0.peerID == peerID }?.entries ?? []
    }
}
