/// Map peer ID → highest transaction number of that peer already applied.
public struct KnowledgeVector: Hashable, Sendable, CustomStringConvertible {
    public private(set) var entries: [String: Int64]

    public init(_ entries: [String: Int64] = [:]) {
        self.entries = entries.filter { $0.value > 0 }
    }

    public subscript(peer: String) -> Int64 {
        get { entries[peer] ?? 0 }
        set { entries[peer] = newValue > 0 ? newValue : nil }
    }

    /// Whether this vector has seen transaction `number` of `peer`.
    public func covers(peer: String, number: Int64) -> Bool { self[peer] >= number }

    /// Whether every entry of `other` is covered by this vector.
    public func dominates(_ other: KnowledgeVector) -> Bool {
        other.entries.allSatisfy { self[$0.key] >= $0.value }
    }

    public mutating func formMaximum(_ other: KnowledgeVector) {
        for (peer, number) in other.entries where number > self[peer] { self[peer] = number }
    }

    /// Apple's string form: peers sorted, zero entries dropped, `peerA:n:peerB:m`.
    public var description: String {
        entries.sorted { $0.key < $1.key }.map { "\($0.key):\($0.value)" }.joined(separator: ":")
    }

    /// The largest transaction number a log's file name can hold (ten digits): a vector read
    /// from the cloud holding more is damaged (and its arithmetic could overflow).
    public static let largestNumber: Int64 = 9_999_999_999

    /// Parses Apple's string form. Peer IDs never hold `:`; numbers are at most `largestNumber`.
    public init?(string: String) {
        var entries: [String: Int64] = [:]
        if !string.isEmpty {
            // Split on bytes when the text is ASCII (peer IDs are): splitting by Character
            // costs a grapheme walk, and with no combining marks both split alike.
            let parts: [Substring] = string.utf8.allSatisfy { $0 < 0x80 }
                ? string.utf8.split(separator: UInt8(ascii: ":"), omittingEmptySubsequences: false).map { Substring($0) }
                : string.split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count % 2 == 0 else { return nil }
            var index = 0
            while index < parts.count {
                guard !parts[index].isEmpty, let number = Int64(parts[index + 1]), number >= 0, number <= Self.largestNumber else { return nil }
                entries[String(parts[index])] = number
                index += 2
            }
        }
        self.init(entries)
    }
}
