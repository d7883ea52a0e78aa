/// What one device's daemon (or one machine's file-sync engine) did and what went wrong, for
/// the scenario report.
public struct TransferStatistics: Sendable, Equatable {
    public var uploads = 0
    public var downloads = 0
    public var deletions = 0
    public var bytesUp: Int64 = 0
    public var bytesDown: Int64 = 0
    /// Versions a file-sync engine set aside under a conflict name (not a fault: two machines wrote one path).
    public var conflictCopies = 0
    /// Faults injected:
    public var drops = 0
    public var truncations = 0
    public var duplicates = 0
    public var quotaRefusals = 0
    public var offlineWindows = 0
    public var lost = 0

    public var transfers: Int { uploads + downloads + deletions }
    public var faults: Int { drops + truncations + duplicates + quotaRefusals + offlineWindows + lost }

    public static func + (lhs: Self, rhs: Self) -> Self {
        var sum = lhs
        sum.uploads += rhs.uploads
        sum.downloads += rhs.downloads
        sum.deletions += rhs.deletions
        sum.bytesUp += rhs.bytesUp
        sum.bytesDown += rhs.bytesDown
        sum.conflictCopies += rhs.conflictCopies
        sum.drops += rhs.drops
        sum.truncations += rhs.truncations
        sum.duplicates += rhs.duplicates
        sum.quotaRefusals += rhs.quotaRefusals
        sum.offlineWindows += rhs.offlineWindows
        sum.lost += rhs.lost
        return sum
    }

    /// `12 up, 30 down, 2 deleted; faults: 3 dropped, 1 truncated`
    public var line: String {
        var text = "\(uploads) up, \(downloads) down, \(deletions) deleted"
        if conflictCopies > 0 { text += ", \(conflictCopies) conflict cop\(conflictCopies == 1 ? "y" : "ies")" }
        let faults = [(drops, "dropped"), (truncations, "truncated"), (duplicates, "duplicated"),
                      (quotaRefusals, "refused over quota"), (offlineWindows, "offline windows"), (lost, "LOST (sabotage)")]
            .filter { $0.0 > 0 }.map { "\($0.0) \($0.1)" }
        if !faults.isEmpty { text += "; faults: " + faults.joined(separator: ", ") }
        return text
    }
}
