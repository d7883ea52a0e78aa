import Foundation
import UbiquityBase
import UbiquityCore
import UbiquitySync

// What doctor reads on every run: each log and receipt of the content and each baseline file,
// verified as an import would verify it, and the folders on the way (never a link).
extension Doctor {
    /// A log that cannot be used, with why.
    struct LogProblem {
        let peerID: String
        let path: String
        let reason: String
    }

    /// What the checks after verification need of a log. Only this is kept: holding every
    /// decoded log with its changes made doctor's memory, and its time per log, grow with the
    /// container.
    struct LogFacts {
        let peerID: String
        let number: Int64
        let date: Double
        let knowledge: KnowledgeVector
        let contentEpoch: String?

        init(_ log: TransactionLog) {
            peerID = log.peerID
            number = log.transactionNumber
            date = log.transactionDate
            knowledge = log.knowledge
            contentEpoch = log.contentEpoch
        }
    }

    /// Reads and verifies every log of `scan` (decode, checksum, model, author, number, stamp).
    static func verifyLogs(_ scan: ContainerScan, location: ContainerLocation, store: PersistentStore, now: Double)
        -> (decoded: [String: LogFacts], problems: [LogProblem]) {
        var decoded: [String: LogFacts] = [:]
        decoded.reserveCapacity(scan.logs.count)
        var problems: [LogProblem] = []
        for file in scan.logs {
            let path = location.relativeLogPath(file.peerID, file.name)
            do {
                let bytes: [UInt8]
                do { bytes = try location.read(file.path, limit: TransactionLog.maximumFileSize) } catch { throw LogError.unreadable(error.message) }
                let log = try TransactionLog(decoding: bytes, model: store.model)
                guard log.peerID == file.peerID else { throw LogError.wrongAuthor(folder: file.peerID, log: log.peerID) }
                guard log.transactionNumber == file.number else { throw LogError.wrongNumber(fileName: file.name, log: log.transactionNumber) }
                guard !log.stamp.isTooFarAhead(of: now) else { throw LogError.stampTooFarAhead(log.stamp, now: now) }
                decoded[file.peerID + "/" + file.name] = LogFacts(log)
            } catch let error as LogError {
                problems.append(LogProblem(peerID: file.peerID, path: path, reason: error.description))
            } catch {
                problems.append(LogProblem(peerID: file.peerID, path: path, reason: "\(error)"))
            }
        }
        return (decoded, problems)
    }

    /// The finding for a log that cannot be used, with the repair that fits its author.
    static func unreadableLogFinding(_ path: String, reason: String, author: String, peer: UbiquityPeer) -> DoctorFinding {
        let repair: Advice = author == peer.peerID
            ? "\(.sync) on this device: it writes its own damaged logs again from the copy it keeps; if it has none, save again — later logs of this peer wait for this one"
            : "let \(author) sync: it writes its damaged logs again from the copy it keeps; if that peer is gone for good, delete the file — its later logs wait for it"
        return DoctorFinding(kind: .unreadableFile, message: "\(path) cannot be used: \(reason)", repair: repair, fixable: false)
    }

    /// A peer's `<ContentName>` or model folder that is not a real folder (a link is never
    /// followed: what it holds is never imported, and its peer cannot write there).
    static func folderFindings(peer peerID: String, _ location: ContainerLocation) -> [DoctorFinding] {
        for directory in [location.contentDirectory(of: peerID), location.logDirectory(of: peerID)] {
            guard let entry = DirectoryEntry.at(directory) else { return [] }
            guard entry.isDirectory else {
                let relative = location.relative(directory) ?? directory
                return [DoctorFinding(kind: .foreignFile,
                    message: "\(relative) is \(entry.kindIfNotRegular ?? "a file"), not a folder: nothing in it is imported, and \(peerID) cannot write its logs there",
                    repair: "replace it by a real folder (move the logs it leads to into one); links are never followed out of the cloud", fixable: false)]
            }
        }
        return []
    }

    /// Receipts that cannot be read or name another peer than their folder's.
    static func receiptFindings(_ scan: ContainerScan, location: ContainerLocation) -> [DoctorFinding] {
        var findings: [DoctorFinding] = []
        for folder in scan.peerFolders {
            // None, or not a regular file (reported with the folder's entries).
            guard folder.entries.contains(where: { $0.kind == .receipt && $0.isRegularFile }) else { continue }
            let peerID = folder.peerID, path = location.receiptPath(of: peerID)
            let relative = location.relativeReceiptPath(of: peerID)
            do {
                let receipt = try Receipt(decoding: try location.read(path, limit: 1 << 20))
                guard receipt.peerID == peerID else {
                    findings.append(DoctorFinding(kind: .unreadableFile, message: "\(relative) names peer \(receipt.peerID), not its folder's",
                        repair: "delete it: \(peerID) writes its receipt again at its next sync (until then its imports do not count for garbage collection)", fixable: false))
                    continue
                }
            } catch {
                findings.append(DoctorFinding(kind: .unreadableFile, message: "\(relative) cannot be used: \(error)",
                    repair: "let \(peerID) sync: it writes its receipt again (until then, logs it may need are kept)", fixable: false))
            }
        }
        return findings
    }

    /// Baseline files set aside: each is verified again from its bytes (not trusting an
    /// earlier verification), and what imports or joins set aside is reported with its reason.
    static func baselineFindings(_ peer: UbiquityPeer, location: ContainerLocation) -> [DoctorFinding] {
        let catalog = peer.makeBaseliner(location).catalog(reverify: true)
        return catalog.setAside.map { name, reason in
            DoctorFinding(kind: .unreadableFile, message: "\(location.relativeBaselinePath(name)) is set aside: \(reason)",
                repair: "nothing is lost: every peer falls back to the logs; once a peer holds everything it rolls a new baseline (to roll one now, \(.rollBaseline)), then delete the damaged file",
                fixable: false)
        }
    }
}
