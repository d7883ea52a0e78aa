/// One removal of the content (`ContentEpoch`): its epoch, how many removals led to it, and
/// when it happened on its remover's clock. Logs, baselines, receipts and stores name the epoch
/// they belong to.
public struct ContentRemoval: Equatable, Sendable {
    public let epoch: String
    public let generation: Int64
    public let date: Double
    /// The removals this one comes after, itself included, counted per remover (peer ID →
    /// how many of its removals): what its remover knew when it read which contents to clear.
    /// Empty for a removal written before removals kept it.
    public let history: KnowledgeVector

    public init(epoch: String, generation: Int64, date: Double, history: KnowledgeVector = KnowledgeVector()) {
        self.epoch = epoch
        self.generation = generation
        self.date = date
        self.history = history
    }

    /// Whether this removal comes after `other` (ties broken so that every peer agrees).
    public func isLater(than other: ContentRemoval) -> Bool { (generation, date, epoch) > (other.generation, other.date, other.epoch) }

    /// Whether neither removal's remover knew of the other when it cleared the content: then
    /// neither cleared what was saved after the other. A removal without a history says nothing
    /// (it may have known of anything).
    public func isConcurrent(with other: ContentRemoval) -> Bool {
        guard !history.entries.isEmpty, !other.history.entries.isEmpty else { return false }
        return !history.dominates(other.history) && !other.history.dominates(history)
    }
}
