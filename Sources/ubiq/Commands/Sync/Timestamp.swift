import Foundation
import Synchronization

/// A time set by the peer's event handler, read by the loop.
final class Timestamp: Sendable {
    private let stored = Mutex<Double?>(nil)
    func set(_ time: Double) { stored.withLock { $0 = time } }
    func clear() { stored.withLock { $0 = nil } }
    var value: Double? { stored.withLock { $0 } }
}
