import Foundation
import UbiquityBase
import UbiquityCore
import UbiquitySync

// Second deliveries of a log or receipt under a numbered name (`name 2.ext`, as iCloud makes
// them): doctor names the file each copies, whether they read the same, and who deletes it.
extension Doctor {
    /// What doctor says of the duplicate copy `entry` (of the file `original`) in `folder`.
    static func duplicateCopyFinding(_ entry: ContainerEntry, of original: String, in folder: ContainerScan.PeerFolder,
                                     location: ContainerLocation) -> DoctorFinding {
        let path = location.relativeLogPath(folder.peerID, entry.name)
        let author = folder.peerID
        let head = "\(path) is a duplicate copy of \(original) (the file delivered a second time, under a numbered name)"
        guard entry.isRegularFile else {
            return DoctorFinding(kind: .foreignFile, message: "\(path) is \(entry.file?.kindIfNotRegular ?? "not a regular file"), named like a duplicate copy of \(original) but never read as one",
                                 repair: "move it out of the cloud (a file-sync tool or a script put it there); nothing waits for it", fixable: false)
        }
        if original == ContainerLocation.receiptName {
            let same = sameContent(entry, original, in: folder, location: location)
            return DoctorFinding(kind: .duplicateCopy,
                message: "\(head): \(same.map { $0 ? "the same bytes as the receipt" : "other bytes than the receipt (an older one)" } ?? "the receipt is not there"); a receipt is only read under its own name",
                repair: "nothing to do: \(author) deletes it at its next sync that collects garbage (and writes its receipt again when it is missing)", fixable: false)
        }
        if let number = folder.standIns[entry.name] {
            return DoctorFinding(kind: .duplicateCopy,
                message: "\(head): \(original) is not there, so the copy is read in its place as transaction \(number) of \(author)",
                repair: "nothing to do: \(author) writes \(original) again from its copy if it still keeps one, and deletes the duplicate once the transaction is collected", fixable: false)
        }
        let same = sameContent(entry, original, in: folder, location: location)
        let what = switch same {
        case true?: "the same bytes as the log (never read: the log is)"
        case false?: "other bytes than the log (a damaged delivery, or the log written again since; never read: the log is)"
        case nil: "\(original) cannot be read to compare, and another file is read as its transaction"
        }
        let when = same == true ? "at its next sync that collects garbage" : "once the transaction is collected (a baseline every peer sees holds it)"
        return DoctorFinding(kind: .duplicateCopy, message: "\(head): \(what)",
                             repair: "nothing to do: \(author) deletes it \(when); only the author deletes files in its folder", fixable: false)
    }

    /// Whether the copy reads as the file it copies (the log standing in for `original` when
    /// that is missing); `nil` when there is nothing to compare with or a file cannot be read.
    private static func sameContent(_ entry: ContainerEntry, _ original: String, in folder: ContainerScan.PeerFolder,
                                    location: ContainerLocation) -> Bool? {
        guard folder.entries.contains(where: { $0.name == original && $0.isRegularFile }),
              let bytes = try? location.read(entry.directory + "/" + original, limit: TransactionLog.maximumFileSize),
              let copy = try? location.read(entry.path, limit: TransactionLog.maximumFileSize) else { return nil }
        return bytes == copy
    }
}
