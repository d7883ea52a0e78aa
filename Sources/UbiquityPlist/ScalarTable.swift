/// Open-addressing hash table from a number's identity (type tag and 64-bit pattern) to
/// its object index, for the binary writer's deduplication. Cheaper than `Dictionary`
/// with `Hasher` for these fixed-size keys; the multiplier is random per table, so inputs
/// cannot be crafted to collide (multiply-shift hashing is universal).
struct ScalarTable {
    private struct Entry {
        var bits: UInt64
        var tag: UInt8  // 0: empty
        var index: Int
    }

    private var entries: [Entry]
    private var count = 0
    private var shift: UInt64
    private let multiplier: UInt64

    init() {
        entries = Array(repeating: Entry(bits: 0, tag: 0, index: 0), count: 1024)
        shift = 64 - 10
        var generator = SystemRandomNumberGenerator()
        multiplier = generator.next() | 1
    }

    /// The index stored for (`tag`, `bits`), or else stores and returns `index`.
    /// `tag` must not be 0.
    mutating func findOrInsert(tag: UInt8, bits: UInt64, index: Int) -> Int {
        if 2 * (count + 1) > entries.count { grow() }
        let mask = entries.count - 1
        var slot = Int(truncatingIfNeeded: ((bits ^ UInt64(tag) << 56) &* multiplier) >> shift)
        while true {
            let entry = entries[slot]
            if entry.tag == 0 {
                entries[slot] = Entry(bits: bits, tag: tag, index: index)
                count += 1
                return index
            }
            if entry.tag == tag && entry.bits == bits { return entry.index }
            slot = (slot + 1) & mask
        }
    }

    private mutating func grow() {
        let old = entries
        entries = Array(repeating: Entry(bits: 0, tag: 0, index: 0), count: old.count * 2)
        shift -= 1
        count = 0
        for entry in old where entry.tag != 0 {
            _ = findOrInsert(tag: entry.tag, bits: entry.bits, index: entry.index)
        }
    }
}
