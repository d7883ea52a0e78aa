import Foundation

/// A time set by the peer's event handler, read by the loop.
final class Timestamp: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Double?
    func set(_ time: Double) { lock.withLock { stored = time } }
    func clear() { lock.withLock { stored = nil } }
    var value: Double? { lock.withLock { stored } }
}
