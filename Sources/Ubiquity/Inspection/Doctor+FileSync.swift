import Foundation
import UbiquityBase
import UbiquityCore
import UbiquitySync

// What a file-sync engine (Syncthing, Dropbox, NFS clients…) leaves in the cloud, as doctor
// reports it: temporary files, conflict copies, unreadable epoch files and peers that write
// from two machines. None of it is ever imported; these findings say what it is and what to do.
extension Doctor {
    /// Where an artifact lies: in a peer's folder, beside the baseline, or beside the content epoch.
    enum Place {
        case peerFolder(String)
        case baseline
        case contentEpoch
    }

    /// What doctor says of a transfer's temporary file or a conflict copy (`kind`); nothing of other kinds.
    static func fileSyncFindings(_ kind: ContainerEntry.Kind, path: String, file: DirectoryEntry, place: Place, now: Date) -> [DoctorFinding] {
        switch kind {
        case let .transfer(engine):
            // A transfer under way is normal; only one that never finished is worth a word.
            guard file.modificationTime < now.timeIntervalSince1970 - staleTemporaryAge else { return [] }
            return [DoctorFinding(kind: .staleTemporaryFile,
                message: "\(path) is a temporary file of \(engine) from a transfer that never finished",
                repair: "the file-sync tool removes its own leftovers (Syncthing after keepTemporariesH); if it no longer runs on this machine, delete the file — it is never imported",
                fixable: false)]
        case let .conflictCopy(original, engine):
            let why: String, repair: Advice
            switch place {
            case let .peerFolder(peerID):
                why = "only \(peerID) writes its folder, so two machines wrote \(original) as that one peer (a device folder copied to a second machine?)"
                repair = "run one machine per device (to make a new one, \(.createDevice)), then delete the copy; it is never imported"
            case .baseline:
                why = "two machines rolled a baseline before seeing each other's"
                repair = "nothing to do: every peer reads the copy like the baseline and joins what it needs of it; a peer that holds both rolls one baseline holding all, and the copy is deleted — never delete it by hand before that"
            case .contentEpoch:
                why = "two machines removed the content at once; every peer follows the removal kept under the name, and the copy is never read"
                repair = "nothing to do: delete the copy when you like (the next content removal deletes it)"
            }
            return [DoctorFinding(kind: .conflictCopy, message: "\(path) is a conflict copy of \(original) made by \(engine): \(why)",
                                  repair: repair, fixable: false)]
        default:
            return []
        }
    }

    /// Artifacts beside the baseline and the content epoch, and epoch files that cannot be read.
    static func sharedFolderFindings(_ location: ContainerLocation, now: Date) -> [DoctorFinding] {
        var findings: [DoctorFinding] = []
        let places: [(ContainerEntry.Folder, Place, (String) -> String)] = [
            (.baselines, .baseline, location.relativeBaselinePath),
            (.contentEpochs, .contentEpoch, location.relativeEpochFolderPath),
        ]
        for (folder, place, relative) in places {
            for entry in ContainerScan.sharedFolder(folder, of: location) where entry.isRegularFile && entry.kind.isFileSyncArtifact {
                // `.content` holds every content's epoch: only copies of this content's concern it.
                if case .contentEpoch = place, case let .conflictCopy(original, _) = entry.kind, original != location.contentEpochName { continue }
                guard let file = entry.file else { continue }
                findings += fileSyncFindings(entry.kind, path: relative(entry.name), file: file, place: place, now: now)
            }
        }
        if case let .unreadable(reason) = ContentEpoch.status(location) {
            findings.append(DoctorFinding(kind: .unreadableFile, message: "\(location.relativeEpochFolderPath(location.contentEpochName)) cannot be read (\(reason)): until it can, no peer notices the removal it holds",
                repair: "if a file-sync tool is still delivering it, wait; else remove the content again, which writes a new one",
                fixable: false))
        }
        return findings
    }

    /// Two log files for one transaction of one peer (in one content epoch: numbers start again
    /// after a removal): two machines write as that peer.
    static func duplicateLogFindings(_ logs: [ContainerScan.LogFile]) -> [DoctorFinding] {
        let groups = Dictionary(grouping: logs) { "\($0.peerID)\n\($0.number)" }
        return groups.values.filter { $0.count > 1 }.sorted { ($0[0].peerID, $0[0].number) < ($1[0].peerID, $1[0].number) }.map { logs in
            DoctorFinding(kind: .duplicatePeer,
                message: "peer \(logs[0].peerID) has \(logs.count) logs for transaction \(logs[0].number) (\(logs.map(\.name).sorted().joined(separator: ", "))): two machines run as this one peer",
                repair: "stop one of them and give it a device of its own (\(.createDevice)); only one of the logs is imported, the other's changes are lost unless saved again",
                fixable: false)
        }
    }
}
