import UbiquityBase

/// Seeded bytes that compress somewhat, like a store: repeated words with random bytes
/// between. The zip writer's and the inflater's tests share them.
func storeLikeBytes(_ count: Int, seed: UInt64) -> [UInt8] {
    var random = SeededGenerator(seed: seed)
    var bytes: [UInt8] = []
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
