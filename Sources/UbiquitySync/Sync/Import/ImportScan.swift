import UbiquityBase
import UbiquityCore

/// What the scan found in the container: the logs to read, and those it leaves unread.
struct ScannedLogs {
    /// The logs to read, by author and, within an author's, as the folder listed them.
    var candidates: [Importer.Candidate] = []
    /// Logs set aside (before or in this pass) and still there, by author and number, with
    /// the reason: their authors' later logs wait for them.
    var setAside: [String: [Int64: String]] = [:]
    /// Logs behind a quarantined one of their author: they cannot apply, so they are counted
    /// as waiting without being read (with when the oldest arrived).
    var unread: [String: (count: Int, arrived: Double)] = [:]
    /// Names that are not logs, in the container's order.
    var ignored: [String] = []
}

extension Importer {
    /// The scan stage: which logs of one listing of the container (`ContainerScan`) are above
    /// `knowledge` and not known to be bad (`records`, still holding at `now`).
    func scanLogs(_ scan: ContainerScan, knowledge: KnowledgeVector, records: [String: QuarantineRecord], now: Double) -> ScannedLogs {
        var scanned = ScannedLogs()
        // Names that are no peer's folder are reported in the root's order, among the peers' own.
        var strangers = scan.strangers[...]
        for folder in scan.peerFolders {
            while let stranger = strangers.first, stranger.name < folder.peerID {
                scanned.ignored.append(stranger.name)
                strangers.removeFirst()
            }
            for other in logger.level >= .verbose ? scan.otherModels(of: folder) : [] { // only named at verbose: not even listed otherwise
                logger.log(.verbose, .importer, "scan", "skipped \(folder.peerID)/\(location.contentName)/\(other.name): other model version")
            }
            let found = scanFolder(folder, floor: knowledge[folder.peerID], records: records, now: now, into: &scanned)
            admitUnblocked(found, of: folder.peerID, into: &scanned)
        }
        scanned.ignored += strangers.map(\.name)
        return scanned
    }

    /// One peer's folder: its logs above `floor`, not set aside by a record that holds.
    private func scanFolder(_ folder: ContainerScan.PeerFolder, floor: Int64, records: [String: QuarantineRecord], now: Double,
                            into scanned: inout ScannedLogs) -> [Candidate] {
        var found: [Candidate] = []
        // Names first: a log already imported is judged by its name alone, without a stat, a path or a hash of the peer ID.
        for entry in folder.entries {
            if entry.kind == .receipt || entry.kind == .temporary { continue }
            // A duplicate copy is read only in place of a missing log (`standInCopies`).
            let number = folder.logNumber(entry)
            if let number, number <= floor {
                logger.log(.verbose, .importer, "scan", "skipped \(location.relativeLogPath(folder.peerID, entry.name)): already imported (knowledge of \(folder.peerID) is \(floor))")
                continue
            }
            let relativePath = location.relativeLogPath(folder.peerID, entry.name)
            // A folder, link or FIFO named like a log is not one (doctor reports it).
            guard let file = entry.file, file.isRegularFile, let number else {
                scanned.ignored.append(relativePath)
                continue
            }
            // A known-bad file, unchanged since, is not even read.
            if let record = records[relativePath], record.holds(for: file, now: now) {
                scanned.setAside[folder.peerID, default: [:]][number] = record.reason
                logger.log(.verbose, .importer, "scan", "skipped \(relativePath): quarantined (\(record.reason))")
                continue
            }
            found.append(Candidate(peerID: folder.peerID, number: number, relativePath: relativePath, entry: file, folder: entry.folder))
        }
        return found
    }

    /// Keeps the logs of `peer` not behind a quarantined one, counting the others as unread.
    private func admitUnblocked(_ found: [Candidate], of peer: String, into scanned: inout ScannedLogs) {
        // The lowest quarantined number no other file stands in for blocks everything above it.
        let blocking = scanned.setAside[peer]?.keys.filter { number in !found.contains { $0.number == number } }.min() ?? .max
        for candidate in found {
            if candidate.number > blocking {
                scanned.unread[peer, default: (0, .infinity)].count += 1
                scanned.unread[peer]!.arrived = min(scanned.unread[peer]!.arrived, candidate.entry.modificationTime)
                logger.log(.verbose, .importer, "scan", "skipped \(candidate.relativePath): behind quarantined transaction \(blocking)")
            } else {
                logger.log(.verbose, .importer, "scan", "considering \(candidate.relativePath)")
                scanned.candidates.append(candidate)
            }
        }
    }
}
