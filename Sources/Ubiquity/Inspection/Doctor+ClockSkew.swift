import Foundation
import UbiquityCore

// Clock skew, judged by causality alone (file times do not survive copies): when a peer wrote
// a transaction after seeing another peer's, its clock must not read earlier.
extension Doctor {
    /// One finding per pair of peers whose clocks disagree by more than `skewTolerance`: a log
    /// of one dated earlier than a log of the other that its knowledge covers.
    ///
    /// Linear in the logs (times the peers, and a binary search): for each peer, the latest
    /// date among its transactions up to each number is a running maximum, so a later log
    /// asks each other peer once for the latest date it has seen of it, instead of comparing
    /// itself with every log.
    static func clockSkewFindings(_ logs: [LogFacts]) -> [DoctorFinding] {
        let byPeer = Dictionary(grouping: logs, by: \.peerID).mapValues(LatestDates.init)
        let peers = byPeer.keys.sorted()
        var findings: [DoctorFinding] = []
        var reported: Set<String> = []
        for later in logs {
            for peer in peers where peer != later.peerID {
                guard let earlier = byPeer[peer]?.latest(upTo: later.knowledge[peer]) else { continue }
                let gap = earlier.date - later.date
                guard gap > skewTolerance, reported.insert([earlier.peerID, later.peerID].sorted().joined(separator: " and ")).inserted else { continue }
                findings.append(DoctorFinding(kind: .clockSkew,
                    message: "the clocks of \(earlier.peerID) and \(later.peerID) disagree by at least \(String(format: "%.0f", gap)) s: \(later.peerID) saw transaction \(earlier.number) of \(earlier.peerID) yet dated its own transaction \(later.number) earlier",
                    repair: "set the clocks of those machines right (NTP); stamps stay causally ordered, but concurrent edits are won by the clock that is ahead", fixable: false))
            }
        }
        return findings
    }

    /// One peer's logs by number, with the log of the latest date among those up to each one.
    private struct LatestDates {
        private let numbers: [Int64]
        private let latest: [LogFacts]

        init(_ logs: [LogFacts]) {
            let sorted = logs.sorted { $0.number < $1.number }
            numbers = sorted.map(\.number)
            var running: [LogFacts] = []
            running.reserveCapacity(sorted.count)
            for log in sorted {
                running.append(running.last.map { $0.date >= log.date ? $0 : log } ?? log)
            }
            latest = running
        }

        /// The log dated latest among those numbered at most `number`, if any.
        func latest(upTo number: Int64) -> LogFacts? {
            // The first index whose number is above `number`.
            var low = 0, high = numbers.count
            while low < high {
                let middle = (low + high) / 2
                if numbers[middle] <= number { low = middle + 1 } else { high = middle }
            }
            return low == 0 ? nil : latest[low - 1]
        }
    }
}
