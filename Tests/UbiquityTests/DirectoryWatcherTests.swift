import Foundation
import Testing
import UbiquityBase

/// `DirectoryWatcher.stop()` returns only once no callback runs any more. A coordinator's
/// watcher that was still in `checkAccount()` after `close()` opened a store in a device
/// folder the test had deleted meanwhile, and left `ubiquity-test-*/devices/<name>/` behind.
@Suite("Directory watcher")
struct DirectoryWatcherTests {
    @Test func stopWaitsForTheCallbackUnderWay() throws {
        let directory = NSTemporaryDirectory() + "ubiquity-watcher-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let entered = DispatchSemaphore(value: 0)
        let finished = DispatchSemaphore(value: 0)
        let watcher = try DirectoryWatcher(directory: directory) { _ in
            entered.signal()
            // Long enough that a stop() which does not wait returns first.
            Thread.sleep(forTimeInterval: 0.3)
            finished.signal()
        }
        try AtomicFile.write([1], to: directory + "/device.plist")
        #expect(entered.wait(timeout: .now() + 10) == .success, "the watcher saw the write")
        watcher.stop()
        // Asked without waiting: signalled only if the callback ended before stop() returned.
        #expect(finished.wait(timeout: .now()) == .success, "stop() returned while the callback still ran")
    }

    /// A callback may stop its own watcher (an owner closed from its handler) without waiting for itself.
    @Test func aCallbackMayStopItsOwnWatcher() throws {
        let directory = NSTemporaryDirectory() + "ubiquity-watcher-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let box = WatcherBox()
        let stopped = DispatchSemaphore(value: 0)
        let watcher = try DirectoryWatcher(directory: directory) { _ in
            box.watcher?.stop()
            stopped.signal()
        }
        box.watcher = watcher
        try AtomicFile.write([1], to: directory + "/device.plist")
        #expect(stopped.wait(timeout: .now() + 10) == .success, "the callback's stop() returned")
        watcher.stop()
    }
}

/// The watcher as its own callback sees it (set once it exists).
private final class WatcherBox: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: DirectoryWatcher?
    var watcher: DirectoryWatcher? {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}
