import UbiquityBase
import UbiquityCore
import UbiquityPlist

// Which of the visible logs a store has not imported it could still import: a roll due for
// stranded transactions waits only for those (`BaselineProtocol.importableLogs`).
extension Baseliner {
    /// Of the logs of this content epoch above the store's knowledge (quarantined ones and
    /// those behind them aside), the first the store could still import from the visible
    /// files, and how many others wait on transactions no visible file holds. Reads each
    /// log's knowledge: asked only when a roll is due for stranded transactions.
    func pendingLogs(_ scan: ContainerScan) throws -> (importable: ContainerScan.LogFile?, waiting: Int) {
        let epoch = try store.contentEpoch()
        var files: [String: ContainerScan.LogFile] = [:]
        var pending: [PendingLog] = []
        for log in try unimportedLogs(scan) {
            // Read as `ContentEpoch.logBelongsToOtherEpoch` reads it: a file that cannot be read says nothing.
            let plist = (try? location.read(log.path, limit: TransactionLog.maximumFileSize)).flatMap { try? PlistSeam.decode($0) }
            if let plist, plist["transactionNumber"] != nil, plist["contentEpoch"]?.stringValue != epoch { continue }
            let knowledge = plist?["kvStr"]?.stringValue.flatMap(KnowledgeVector.init(string:))
            pending.append(PendingLog(peer: log.peerID, number: log.number, knowledge: knowledge))
            files[Self.key(log.peerID, log.number)] = log
        }
        let importable = BaselineProtocol.importableLogs(knowledge: store.knowledge, pending: pending)
        let first = importable.min { ($0.peer, $0.number) < ($1.peer, $1.number) }
        return (first.flatMap { files[Self.key($0.peer, $0.number)] }, pending.count - importable.count)
    }

    private static func key(_ peer: String, _ number: Int64) -> String { peer + ":" + String(number) }
}
