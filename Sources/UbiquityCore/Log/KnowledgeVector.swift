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
        // An ASCII text (peer IDs are) is read in one pass over its bytes: splitting it into
        // substrings first, and growing the dictionary, was most of reading a log's header.
        let fast = string.utf8.withContiguousStorageIfAvailable { Self.parseASCII($0) }
        switch fast {
        case let .valid(entries)?:
            self.init(positive: entries)
            return
        case .invalid?:
            return nil
        case .notASCII?, nil:
            break
        }
        var entries: [String: Int64] = [:]
        if !string.isEmpty {
            let parts = string.split(separator: ":", omittingEmptySubsequences: false)
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

    private init(positive entries: [String: Int64]) {
        self.entries = entries
    }

    private enum ASCIIParse {
        case valid([String: Int64])   // zero entries dropped
        case invalid
        case notASCII
    }

    /// `peer:number` pairs split on `:` bytes, each number read as `Int64(_:)` reads it (an
    /// optional sign, then digits), kept when it is from 0 to `largestNumber`.
    private static func parseASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> ASCIIParse {
        let colon = UInt8(ascii: ":")
        var fields = 1
        for byte in bytes {
            if byte >= 0x80 { return .notASCII }
            if byte == colon { fields += 1 }
        }
        guard !bytes.isEmpty else { return .valid([:]) }
        guard fields % 2 == 0 else { return .invalid }
        var entries: [String: Int64] = [:]
        entries.reserveCapacity(fields / 2)
        var start = 0
        while start < bytes.count {
            var colonAt = start
            while bytes[colonAt] != colon { colonAt += 1 }   // a number follows every peer
            guard colonAt > start else { return .invalid }
            var end = colonAt + 1
            while end < bytes.count && bytes[end] != colon { end += 1 }
            guard let number = number(bytes, from: colonAt + 1, to: end) else { return .invalid }
            let peer = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<colonAt]), as: UTF8.self)
            entries[peer] = number > 0 ? number : nil
            start = end + 1
        }
        return .valid(entries)
    }

    private static func number(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int) -> Int64? {
        var index = start, negative = false
        if index < end, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
            negative = bytes[index] == UInt8(ascii: "-")
            index += 1
        }
        guard index < end else { return nil }
        var value: Int64 = 0
        while index < end {
            let digit = bytes[index] &- UInt8(ascii: "0")
            // Past the largest number the value only grows: too large whatever follows.
            guard digit < 10, value <= (largestNumber - Int64(digit)) / 10 else { return nil }
            value = value * 10 + Int64(digit)
            index += 1
        }
        return negative && value != 0 ? nil : value
    }
}
