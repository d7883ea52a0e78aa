import Synchronization
import UbiquityBase

/// The lines a logger wrote, kept in memory (a bug report's level-3 output of a sync).
public final class CapturedLog: Sendable {
    private let lines = Mutex<[String]>([])

    public init() {}

    /// A logger at `level` whose every line is kept here.
    public func logger(level: LogLevel) -> UbiquityLogger {
        UbiquityLogger(level: level, peerID: "", storeName: "") { [self] line in lines.withLock { $0.append(line) } }
    }

    /// What was logged so far, one entry per message (a message may span lines).
    public var text: String { lines.withLock { $0.map { $0 + "\n" }.joined() } }
}
