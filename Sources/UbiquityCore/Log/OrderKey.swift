/// Position keys of ordered to-many relationships: strings over 62 digits (`0-9A-Za-z`, in
/// byte order) read as fractions `0.d1d2…`, compared as bytes. Between any two distinct keys
/// lies another, so an insert never renumbers its neighbours, and a key ends in a peer's own
/// digits so two peers inserting at the same place concurrently make distinct keys, ordered the
/// same way on every peer (Docs/SyncSemantics.md, "Ordered to-many").
public enum OrderKey {
    static let digits = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz".utf8)
    /// The longest key a log may carry. Appending and prepending step by one digit (a key grows
    /// by a digit per 30 or more of them); inserts again and again between the same two
    /// members halve the gap (a digit per 6).
    public static let maximumLength = 1024

    /// Whether `key` is a key this code could have made: digits only, not empty, not ending in `0`.
    public static func isValid(_ key: String) -> Bool {
        let bytes = Array(key.utf8)
        guard !bytes.isEmpty, bytes.count <= maximumLength, bytes.last != digits[0] else { return false }
        return bytes.allSatisfy { value($0) != nil }
    }

    /// A key strictly between `lower` and `upper` (`nil`: the start or the end), ending in the
    /// digits of `peer`. When `lower` is not below `upper` (two keys alike), the key goes just after `lower`.
    public static func between(_ lower: String?, _ upper: String?, peer: String) -> String {
        let low = lower.map { Array($0.utf8).compactMap(value) } ?? []
        var high = upper.map { Array($0.utf8).compactMap(value) }
        if let h = high, !less(low, h) { high = nil }
        let middle: [Int]
        if lower == nil, let high { middle = before(high) } else if high == nil { middle = after(low) } else { middle = midpoint(low, high) }
        return String(decoding: (middle + suffix(of: peer)).map { digits[$0] }, as: UTF8.self)
    }

    /// A digit string strictly between `low` and `high` (nil = 1.0) that is no prefix of `high`,
    /// so any suffix appended keeps it below `high`.
    private static func midpoint(_ low: [Int], _ high: [Int]?) -> [Int] {
        var prefix: [Int] = []
        var index = 0
        if let high {
            // The common prefix, reading a missing digit of `low` as 0.
            while index < high.count, (index < low.count ? low[index] : 0) == high[index] {
                prefix.append(high[index])
                index += 1
            }
        }
        let lowDigit = index < low.count ? low[index] : 0
        let highDigit = high.map { index < $0.count ? $0[index] : 0 } ?? digits.count
        if highDigit - lowDigit > 1 { return prefix + [(lowDigit + highDigit) / 2] }
        // Neighbouring digits: keep `low`'s and go one digit deeper, above the rest of `low`.
        let rest = index < low.count ? Array(low[(index + 1)...]) : []
        return prefix + [lowDigit] + midpoint(rest, nil)
    }

    /// A key just above `low`: its shortest prefix whose last digit can grow, grown by one.
    private static func after(_ low: [Int]) -> [Int] {
        for (index, digit) in low.enumerated() where digit < digits.count - 1 {
            return Array(low[..<index]) + [digit + 1]
        }
        return low + [digits.count / 2]
    }

    /// A key just below `high` and no prefix of it: its first digit less one, or (at 1) a 0
    /// then a key below the rest.
    private static func before(_ high: [Int]) -> [Int] {
        guard let first = high.first else { return [digits.count / 2] }
        if first > 1 { return [first - 1] }
        if first == 1 { return [0, digits.count - 1] }
        return [0] + before(Array(high.dropFirst()))
    }

    /// Three digits from the peer ID (FNV-1a), the last never `0`.
    private static func suffix(of peer: String) -> [Int] {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in peer.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        let base = UInt64(digits.count)
        return [Int(hash % base), Int(hash / base % base), 1 + Int(hash / base / base % (base - 1))]
    }

    private static func value(_ byte: UInt8) -> Int? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return Int(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): return Int(byte - UInt8(ascii: "A")) + 10
        case UInt8(ascii: "a")...UInt8(ascii: "z"): return Int(byte - UInt8(ascii: "a")) + 36
        default: return nil
        }
    }

    private static func less(_ a: [Int], _ b: [Int]) -> Bool { a.lexicographicallyPrecedes(b) }
}
