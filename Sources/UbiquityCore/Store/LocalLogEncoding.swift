import Foundation
import UbiquityPlist

/// The bytes of a log being saved, encoded on another thread while the caller writes its rows:
/// the two depend only on the log. Small logs are encoded at once, on the caller's thread,
/// where a hand-over would cost more than it saves.
final class LocalLogEncoding: @unchecked Sendable {
    /// Records from which a log is encoded beside the rows.
    static let concurrentFrom = 256

    private let condition = NSCondition()
    private var result: [UInt8]?

    init(_ log: TransactionLog, format: PlistFormat) {
        guard format == .binary, log.inserted.count + log.updated.count + log.deleted.count >= Self.concurrentFrom else {
            result = format == .binary ? log.encodedBinary() : log.encoded(format: format)
            return
        }
        // A thread of its own, not a dispatch queue's: the caller blocks until it is done, and a
        // saturated queue must never be what it waits for.
        Thread.detachNewThread { [self] in
            let bytes = log.encodedBinary()
            condition.lock()
            result = bytes
            condition.broadcast()
            condition.unlock()
        }
    }

    /// The encoded log, waiting for it if need be.
    func bytes() -> [UInt8] {
        condition.lock()
        defer { condition.unlock() }
        while result == nil { condition.wait() }
        return result!
    }
}
