/// A Bloom filter of object IDs: `mayContain` is false only for an ID never added, and true
/// for about 1 % of the others. It grows by layers, each twice the size of the one before, so
/// adding never rehashes what is there. IDs are hashed by their UTF-8 bytes, which is how
/// SQLite compares the `gid` keys (Swift's `==` on strings would call some different byte
/// sequences equal).
struct GlobalIDFilter {
    /// About 1 % false positives: ten bits (up to twenty, the table being a power of two) and
    /// seven probes per ID.
    private static let bitsPerID = 10, probes = 7

    private struct Layer {
        var words: [UInt64]
        /// The number of bits, a power of two, less one: a probe's bit is its position masked.
        let mask: UInt64
        let capacity: Int
        var count = 0

        init(capacity: Int) {
            self.capacity = capacity
            var bits = 64
            while bits < capacity * GlobalIDFilter.bitsPerID { bits *= 2 }
            words = Array(repeating: 0, count: bits / 64)
            mask = UInt64(bits - 1)
        }

        /// The probes' bits are found by double hashing of the two halves of `hash` (an odd
        /// step visits distinct bits of a power-of-two table).
        mutating func insert(_ hash: UInt64) {
            let step = (hash >> 32) | 1
            var position = hash & 0xFFFF_FFFF
            for _ in 0..<GlobalIDFilter.probes {
                let bit = position & mask
                words[Int(bit >> 6)] |= 1 << (bit & 63)
                position &+= step
            }
            count += 1
        }

        func contains(_ hash: UInt64) -> Bool {
            let step = (hash >> 32) | 1
            var position = hash & 0xFFFF_FFFF
            for _ in 0..<GlobalIDFilter.probes {
                let bit = position & mask
                guard words[Int(bit >> 6)] & (1 << (bit & 63)) != 0 else { return false }
                position &+= step
            }
            return true
        }
    }

    private var layers: [Layer]

    /// A filter with room for `capacity` IDs in its first layer.
    init(capacity: Int) {
        layers = [Layer(capacity: Swift.max(capacity, 1024))]
    }

    /// How many IDs were added.
    var count: Int { layers.reduce(0) { $0 + $1.count } }

    mutating func add(_ id: String) { add(hash: Self.hash(id)) }

    /// Adds the ID whose bytes hash to `hash` (`hash(bytes:)`).
    mutating func add(hash: UInt64) {
        if layers[layers.count - 1].count >= layers[layers.count - 1].capacity {
            layers.append(Layer(capacity: layers[layers.count - 1].capacity * 2))
        }
        layers[layers.count - 1].insert(hash)
    }

    func mayContain(_ id: String) -> Bool {
        let hash = Self.hash(id)
        return layers.contains { $0.contains(hash) }
    }

    /// A 64-bit hash of the string's UTF-8 bytes: eight bytes at a time, each mixed in by a
    /// multiply, then MurmurHash3's finalizer so every output bit depends on every input bit.
    static func hash(_ text: String) -> UInt64 {
        if let hash = text.utf8.withContiguousStorageIfAvailable({ hash(bytes: UnsafeRawBufferPointer($0)) }) { return hash }
        return Array(text.utf8).withUnsafeBytes { hash(bytes: $0) }
    }

    static func hash(bytes: UnsafeRawBufferPointer) -> UInt64 {
        let multiplier: UInt64 = 0x9E37_79B9_7F4A_7C15
        var hash = UInt64(truncatingIfNeeded: bytes.count) &* multiplier
        var offset = 0
        while bytes.count - offset >= 8 {
            let word = bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
            hash = (hash ^ word) &* multiplier
            hash ^= hash >> 29
            offset += 8
        }
        if offset < bytes.count {
            var tail: UInt64 = 0
            for index in offset..<bytes.count { tail = tail << 8 | UInt64(bytes[index]) }
            hash = (hash ^ tail) &* multiplier
        }
        hash ^= hash >> 33
        hash = hash &* 0xFF51_AFD7_ED55_8CCD
        hash ^= hash >> 33
        hash = hash &* 0xC4CE_B9FE_1A85_EC53
        hash ^= hash >> 33
        return hash
    }
}
