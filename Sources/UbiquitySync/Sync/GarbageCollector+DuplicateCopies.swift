import Foundation
import UbiquityBase
import UbiquityCore

extension GarbageCollector {
    /// Deletes the duplicate copies (`name 2.ext`, `DuplicateCopy`) in this peer's own log
    /// folder that can go without losing anything. Only the author deletes them, as it alone
    /// deletes its logs and writes its folder (Docs/ContainerFormat.md, Docs/Lifecycle.md): a copy left in the folder of a
    /// peer that never syncs again stays, as its logs do.
    ///
    /// - A copy of the receipt goes at once: a receipt is only ever read under its own name,
    ///   and the author writes that one again whenever it is stale.
    /// - A copy of a log that is there goes when both read the same (the same bytes; for
    ///   sealed content, the same once opened): the log holds all the copy holds.
    /// - Any other copy of a log (other bytes: a damaged delivery, or a log written again
    ///   since) goes only when the log's transaction itself may be collected (`mayCollect`),
    ///   so never before a baseline that every known peer sees holds it.
    ///
    /// A copy standing in for a missing log (`ContainerEntry.standInCopies`) is not judged
    /// here: it is the log, and goes by the log rule (`collect`). `mayCollect` gets the
    /// transaction number and asks the copy's modification time only if it needs it.
    /// Returns the names deleted (or, with `dryRun`, that would be).
    func collectDuplicateCopies(in folder: ContainerScan.PeerFolder?, dryRun: Bool,
                                mayCollect: (Int64, () -> Double) -> Bool) -> [String] {
        guard let folder, folder.entries.contains(where: { if case .duplicateCopy = $0.kind { true } else { false } }) else { return [] }
        let directory = location.logDirectory(of: store.peerID)
        // The file read as each log: the log under its name, or the copy standing in for it.
        var readAs: [Int64: String] = [:]
        for entry in folder.entries where entry.isRegularFile {
            if let number = folder.logNumber(entry), readAs[number] == nil || entry.logNumber != nil { readAs[number] = entry.name }
        }
        var deleted: [String] = []
        for entry in folder.entries where entry.isRegularFile && folder.standIns[entry.name] == nil {
            guard case let .duplicateCopy(original) = entry.kind else { continue }
            let goes: Bool
            if original == ContainerLocation.receiptName {
                goes = true
            } else if let number = TransactionLog.transactionNumber(inFileName: original) {
                goes = sameContent(entry.name, readAs[number], in: directory)
                    || mayCollect(number, { entry.file?.modificationTime ?? .infinity })
            } else {
                goes = false
            }
            guard goes else { continue }
            if dryRun || (location.isConfined(directory) && unlink(directory + "/" + entry.name) == 0) { deleted.append(entry.name) }
        }
        if !dryRun && !deleted.isEmpty {
            logger.log(.info, .garbageCollector, "collect", "deleted \(deleted.count) duplicate cop\(deleted.count == 1 ? "y" : "ies") of own logs or receipt: \(deleted.prefix(3).joined(separator: ", "))")
        }
        return deleted
    }

    /// Whether the files `copy` and `log` of `directory` read the same (opened when sealed);
    /// `false` when either cannot be read or there is no log.
    private func sameContent(_ copy: String, _ log: String?, in directory: String) -> Bool {
        guard let log, let original = try? location.read(directory + "/" + log, limit: TransactionLog.maximumFileSize) else { return false }
        return (try? location.read(directory + "/" + copy, limit: original.count + 1)) == original
    }
}
