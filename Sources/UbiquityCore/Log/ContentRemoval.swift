/// One removal of the content (`ContentEpoch`): its epoch, how many removals led to it, and
/// when it happened on its remover's clock. Logs, baselines, receipts and stores name the epoch
/// they belong to.
public struct ContentRemoval: Equatable, Sendable {
    public let epoch: String
    public let generation: Int64
    public let date: Double

    public init(epoch: String, generation: Int64, date: Double) {
        self.epoch = epoch
        self.generation = generation
        self.date = date
    }

    /// Whether this removal comes after `other` (ties broken so that every peer agrees).
    public func isLater(than other: ContentRemoval) -> Bool { (generation, date, epoch) > (other.generation, other.date, other.epoch) }
}
