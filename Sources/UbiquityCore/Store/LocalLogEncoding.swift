import Foundation
import Synchronization
import UbiquityPlist

/// The bytes of a log being saved, encoded on another thread while the caller writes its rows:
/// the two depend only on the log. Small logs are encoded at once, on the caller's thread,
/// where a hand-over would cost more than it saves.
final class LocalLogEncoding: Sendable {
    /// Records from which a log is encoded beside the rows.
    static let concurrentFrom = 256

    private let result = Mutex<[UInt8]?>(nil)
    /// Signalled once the other thread has set `result`.
    private let encoded = DispatchSemaphore(value: 0)

    init(_ log: TransactionLog, format: PlistFormat) {
        guard format == .binary, log.inserted.count + log.updated.count + log.deleted.count >= Self.concurrentFrom else {
            let bytes = format == .binary ? log.encodedBinary() : log.encoded(format: format)
            result.withLock { $0 = bytes }
            return
        }
        // A thread of its own, not a dispatch queue's: the caller blocks until it is done, and a
        // saturated queue must never be what it waits for.
        Thread.detachNewThread { [self] in
            let bytes = log.encodedBinary()
            result.withLock { $0 = bytes }
            encoded.signal()
        }
    }

    /// The encoded log, waiting for it if need be.
    func bytes() -> [UInt8] {
        if let bytes = result.withLock({ $0 }) { return bytes }
        encoded.wait()
        guard let bytes = result.withLock({ $0 }) else { preconditionFailure("signalled before the log was encoded") }
        return bytes
    }
}
