import Testing
@testable import UbiquityCore
@testable import UbiquitySync

/// The importer's causal order, from logs' headers alone (`CausalOrder`, Docs/SyncSemantics.md):
/// a log applies once its author's previous log has and everything else its author had seen.
@Suite("Causal order of imported logs")
struct CausalOrderTests {
    static func header(_ peer: String, _ number: Int64, knows seen: [String: Int64] = [:]) -> CausalOrder.Header {
        var knowledge = KnowledgeVector(seen)
        knowledge[peer] = number - 1
        return CausalOrder.Header(LogID(peer, number), knowledge: knowledge)
    }

    /// A's second log saw C's first, which saw B's, which saw A's first: A's run stops at its
    /// second log and resumes once the others are in.
    static let interleaved = [
        header("A", 1), header("A", 2, knows: ["B": 1, "C": 1]),
        header("B", 1, knows: ["A": 1]), header("C", 1, knows: ["A": 1, "B": 1]),
    ]

    @Test("Three peers with interleaved knowledge apply in causal order")
    func interleavedPeers() {
        let order = CausalOrder(Self.interleaved, after: KnowledgeVector())
        #expect(order.order == [LogID("A", 1), LogID("B", 1), LogID("C", 1), LogID("A", 2)])
        #expect(order.knowledge == KnowledgeVector(["A": 2, "B": 1, "C": 1]))
        #expect(order.waiting.isEmpty)
        #expect(order.missing.isEmpty)
    }

    @Test("The order does not depend on the order the headers come in")
    func headerOrderIsIrrelevant() {
        let forward = CausalOrder(Self.interleaved, after: KnowledgeVector())
        #expect(CausalOrder(Self.interleaved.reversed(), after: KnowledgeVector()) == forward)
        #expect(CausalOrder([Self.interleaved[3], Self.interleaved[0], Self.interleaved[2], Self.interleaved[1]], after: KnowledgeVector()) == forward)
    }

    @Test("Logs start after the knowledge already applied")
    func startsAfterKnowledge() {
        let order = CausalOrder([Self.header("A", 3, knows: ["B": 1]), Self.header("B", 2, knows: ["A": 3])], after: KnowledgeVector(["A": 2, "B": 1]))
        #expect(order.order == [LogID("A", 3), LogID("B", 2)])
        #expect(order.knowledge == KnowledgeVector(["A": 3, "B": 2]))
    }

    @Test("A gap stops its author's later logs and every log that saw them")
    func gap() {
        let order = CausalOrder([Self.header("A", 1), Self.header("A", 3), Self.header("B", 1, knows: ["A": 3]), Self.header("C", 1)],
                                after: KnowledgeVector())
        #expect(order.order == [LogID("A", 1), LogID("C", 1)])
        #expect(order.knowledge == KnowledgeVector(["A": 1, "C": 1]))
        #expect(order.waiting == [LogID("A", 3), LogID("B", 1)])
        // A waits for its missing second log; B's first is there and waits for A's third.
        #expect(order.missing == ["A": 2])
    }

    @Test("Of two headers for one log the first counts")
    func duplicate() {
        let plain = Self.header("A", 1), seenMore = Self.header("A", 1, knows: ["B": 1])
        let first = CausalOrder([plain, seenMore], after: KnowledgeVector())
        #expect(first.order == [LogID("A", 1)])
        #expect(first.waiting.isEmpty)
        let second = CausalOrder([seenMore, plain], after: KnowledgeVector())
        #expect(second.order.isEmpty)
        #expect(second.waiting == [LogID("A", 1)])
        // A's next log is there: it waits for B's, which is no author's here.
        #expect(second.missing.isEmpty)
    }

    @Test("What waits names the predecessor missing after a given knowledge")
    func missingAfterKnowledge() {
        let waiting = [LogID("A", 4), LogID("A", 5), LogID("B", 2)]
        #expect(CausalOrder.missing(waiting, after: KnowledgeVector(["A": 2, "B": 1])) == ["A": 3])
        #expect(CausalOrder.missing(waiting, after: KnowledgeVector(["A": 3])) == ["B": 1])
    }
}
