import UbiquityCore

extension ContainerEntry {
    /// The duplicate copies among one log folder's `entries` that stand in for their log, with
    /// its transaction number: a copy is read as the log only when no regular file holds the
    /// log's number (under its own name or another), since a second delivery may then be the
    /// only one that arrived — the original renamed by the engine, lost, or deleted by its
    /// author's garbage collection while the copy travelled. Of several copies of one log the
    /// first by name stands in. A copy is never read beside a log: the log is the file, and its
    /// author deletes the copy (`GarbageCollector.collectDuplicateCopies`).
    ///
    /// What stands in goes through every check a log does (decoding, checksum, author, number),
    /// so a copy with other bytes than the log's is quarantined like a damaged log.
    package static func standInCopies(_ entries: [ContainerEntry]) -> [String: Int64] {
        var copies: [(name: String, number: Int64)] = []
        for entry in entries where entry.isRegularFile {
            if case let .duplicateCopy(original) = entry.kind, let number = TransactionLog.transactionNumber(inFileName: original) {
                copies.append((entry.name, number))
            }
        }
        // Most folders hold no copy: their logs' numbers are not gathered (every sync lists every folder).
        guard !copies.isEmpty else { return [:] }
        var numbers: Set<Int64> = []
        for entry in entries where entry.isRegularFile {
            if case let .log(number) = entry.kind { numbers.insert(number) }
        }
        var standIns: [String: Int64] = [:]
        for copy in copies.sorted(by: { $0.name < $1.name }) where numbers.insert(copy.number).inserted {
            standIns[copy.name] = copy.number
        }
        return standIns
    }
}
