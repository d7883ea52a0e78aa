import Testing
@testable import Ubiquity

/// The collection asks what the receipts let go once (`BaselineProtocol.collectableByReceipts`)
/// instead of `mayCollect` for each log: both must give the same answer for every number.
@Suite("What the receipts let a collection delete")
struct CollectableByReceiptsTests {
    @Test(arguments: SeededGenerator.testSeeds([1, 2, 3]))
    func theBoundSaysWhatMayCollectSays(seed: UInt64) {
        var random = SeededGenerator(seed: seed)
        let peers = ["alice~1", "bob~2", "carol~3", "dave~4"]
        func vector() -> KnowledgeVector {
            KnowledgeVector(Dictionary(uniqueKeysWithValues: peers.filter { _ in Bool.random(using: &random) }.map { ($0, Int64.random(in: 0...9, using: &random)) }))
        }
        for round in 0..<300 {
            let author = peers.randomElement(using: &random)!, view = vector()
            let receipts = (0..<Int.random(in: 0...4, using: &random)).map { _ in ReceiptView(knowledge: vector(), baselineView: vector()) }
            let withoutReceipt = Int.random(in: 0...3, using: &random) == 0 ? 1 : 0
            let bound = BaselineProtocol.collectableByReceipts(author: author, view: view, receipts: receipts, peersWithoutReceipt: withoutReceipt)
            for number in Int64(-1)...11 {
                let expected = BaselineProtocol.mayCollect(author: author, number: number, view: view, receipts: receipts,
                                                           peersWithoutReceipt: withoutReceipt, olderThanGracePeriod: false)
                #expect((bound.map { number <= $0 } ?? false) == expected, "seed \(seed), round \(round), number \(number)")
            }
        }
    }
}
