import UbiquityBase

/// Seeded bytes that compress somewhat, like a store: SQLite's file header (a baseline's
/// check asks for it), then repeated words with random bytes between. The zip writer's and the
/// inflater's tests share them.
func storeLikeBytes(_ count: Int, seed: UInt64) -> [UInt8] {
    var random = SeededGenerator(seed: seed)
    var bytes = Array("SQLite format 3\u{0}".utf8)
    bytes.reserveCapacity(count)
    while bytes.count < count {
        if Bool.random(using: &random) {
            bytes += Array("note title body ".utf8)
        } else {
            bytes.append(UInt8.random(in: 0...255, using: &random))
        }
    }
    return Array(bytes.prefix(count))
}
