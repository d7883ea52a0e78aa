/// When a peer rolls a baseline and how long logs are kept (Docs/Lifecycle.md). Apple's defaults.
public struct BaselinePolicy: Sendable, Equatable {
    /// Roll when the logs since the current baseline hold this many transactions across peers.
    public var transactionThreshold: Int64
    /// …or when their bytes reach this fraction of the store's size…
    public var logBytesFraction: Double
    /// …and at least this many bytes.
    public var minimumLogBytes: Int64
    /// Own logs covered by the baseline are deleted once every known peer's receipt has passed
    /// them, or once they are older than this (seconds), so a peer gone for good never blocks.
    public var gracePeriod: Double
    /// An external data file no log or baseline names is deleted once it is this old (seconds
    /// since it was written, or since a save last named it): the time a peer may take between
    /// writing a file and the log that names it.
    public var externalDataGracePeriod: Double = 3600

    public init(transactionThreshold: Int64 = 100, logBytesFraction: Double = 0.5, minimumLogBytes: Int64 = 1 << 20,
                gracePeriod: Double = 7 * 24 * 3600) {
        self.transactionThreshold = transactionThreshold
        self.logBytesFraction = logBytesFraction
        self.minimumLogBytes = minimumLogBytes
        self.gracePeriod = gracePeriod
    }

    public static let apple = BaselinePolicy()
}
