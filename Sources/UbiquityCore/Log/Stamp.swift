import Foundation

/// A hybrid logical clock value `(wall ms, counter, peer ID)`: totally ordered, and causally
/// later implies larger. Its text form sorts like the value (fixed-width numbers first).
public struct Stamp: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let wallMilliseconds: Int64
    public let counter: Int64
    public let peerID: String

    public init(wallMilliseconds: Int64, counter: Int64, peerID: String) {
        self.wallMilliseconds = wallMilliseconds
        self.counter = counter
        self.peerID = peerID
    }

    /// `0001732312345678.00000000.<peerID>`
    public var description: String {
        let wall = String(wallMilliseconds)
        let count = String(counter)
        return String(repeating: "0", count: max(0, 16 - wall.count)) + wall + "."
            + String(repeating: "0", count: max(0, 8 - count.count)) + count + "." + peerID
    }

    public init?(_ text: String) {
        let parts = text.split(separator: ".", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 16, parts[1].count == 8,
              let wall = Int64(parts[0]), let count = Int64(parts[1]), wall >= 0, count >= 0, !parts[2].isEmpty else { return nil }
        self.init(wallMilliseconds: wall, counter: count, peerID: String(parts[2]))
    }

    public static func < (lhs: Stamp, rhs: Stamp) -> Bool {
        (lhs.wallMilliseconds, lhs.counter, lhs.peerID) < (rhs.wallMilliseconds, rhs.counter, rhs.peerID)
    }

    public var date: Date { Date(timeIntervalSince1970: Double(wallMilliseconds) / 1000) }

    /// How far ahead of this machine's clock a stamp from the cloud may be, in seconds (a day).
    /// A log or baseline stamped further ahead is treated as damaged: adopting its stamp would
    /// drag this peer's clock, and every stamp it writes after, toward the largest a stamp can hold.
    public static let maximumLead: Double = 86_400
    /// The largest parts a stamp's text can hold (16 and 8 digits).
    static let largestWallMilliseconds: Int64 = 9_999_999_999_999_999, largestCounter: Int64 = 99_999_999

    /// Whether this stamp lies more than `maximumLead` ahead of `now` (seconds since 1970).
    public func isTooFarAhead(of now: Double) -> Bool { Double(wallMilliseconds) > (now + Self.maximumLead) * 1000 }
}

/// The hybrid logical clock of one peer: `tick` for a local transaction, `observe` for a
/// received one, so every local stamp is larger than anything already seen.
struct HybridLogicalClock {
    let peerID: String
    private(set) var last: Stamp?

    init(peerID: String, last: Stamp?) {
        self.peerID = peerID
        self.last = last
    }

    mutating func tick(now: Date) -> Stamp {
        // A clock set before 1970 or past what a stamp holds still makes stamps that read back.
        let milliseconds = (now.timeIntervalSince1970 * 1000).rounded(.down)
        // (9e15 converts exactly; the largest stamp, 16 nines, does not fit a Double.)
        let physical = milliseconds.isFinite ? Int64(min(max(milliseconds, 0), 9e15)) : 0
        let stamp: Stamp
        if let last, last.wallMilliseconds >= physical {
            // The counter has 8 digits: past them, the next millisecond, so every stamp this
            // clock makes can be read back.
            stamp = last.counter < Stamp.largestCounter
                ? Stamp(wallMilliseconds: last.wallMilliseconds, counter: last.counter + 1, peerID: peerID)
                : Stamp(wallMilliseconds: min(last.wallMilliseconds + 1, Stamp.largestWallMilliseconds), counter: 0, peerID: peerID)
        } else {
            stamp = Stamp(wallMilliseconds: physical, counter: 0, peerID: peerID)
        }
        last = stamp
        return stamp
    }

    /// Adopts a received stamp that is larger than the last. Stamps from the cloud are checked
    /// first (`Stamp.isTooFarAhead`, by the importer and a baseline's validation), and every
    /// stamp that parses is one `tick` can follow with a stamp that parses too.
    mutating func observe(_ stamp: Stamp) {
        if let current = last, (current.wallMilliseconds, current.counter) >= (stamp.wallMilliseconds, stamp.counter) { return }
        last = Stamp(wallMilliseconds: stamp.wallMilliseconds, counter: stamp.counter, peerID: peerID)
    }
}
