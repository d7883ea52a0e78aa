/// One transaction log by its author and number: what the importer keys its logs by.
/// Ordered by author, then number (the order a batch takes a container's logs in).
package struct LogID: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The author's peer ID.
    package let peer: String
    /// The author's transaction number.
    package let number: Int64

    package init(_ peer: String, _ number: Int64) {
        (self.peer, self.number) = (peer, number)
    }

    package static func < (a: LogID, b: LogID) -> Bool { (a.peer, a.number) < (b.peer, b.number) }

    package var description: String { "\(peer):\(number)" }
}
