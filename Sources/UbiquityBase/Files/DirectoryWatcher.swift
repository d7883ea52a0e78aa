import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Watches directories with inotify and calls back with the names written, renamed or created
/// in them. A background thread blocks in `poll`, so nothing polls the disk in a loop;
/// `stop()` wakes it through a pipe and waits for it to end.
///
/// Events can be missed: a watched folder deleted (or moved away) takes its watch with it, and
/// a full queue drops events. `onLost` is told of both, so its owner rescans and adds the
/// folders again once they are back.
public final class DirectoryWatcher: Sendable {
    private let inotify: Int32
    /// The write end of the pipe that wakes the thread to end (-1 once written), and the
    /// thread, once it runs (`stop()` called from a callback must not wait for itself).
    private let control = Mutex<(wakeUp: Int32, thread: pthread_t?)>((-1, nil))
    /// Signalled by the thread as it ends: `stop()` waits for it, so no `onChange` runs after.
    private let ended = DispatchSemaphore(value: 0)

    /// Starts watching `directory`; `onChange` runs on the watcher's thread with each file name,
    /// and `onLost` when a watched folder went away or events were dropped.
    public convenience init(directory: String, onChange: @escaping @Sendable (String) -> Void,
                            onLost: @escaping @Sendable () -> Void = {}) throws(FileError) {
        try self.init(naming: directory, onChange: onChange, onLost: onLost)
        guard inotify_add_watch(inotify, directory, Self.mask) >= 0 else {
            let error = FileError(path: directory, operation: "watch", errno: errno)
            stop()
            throw error
        }
    }

    /// Starts a watcher that watches nothing yet: `add` gives it its directories (a folder that
    /// may not exist now, such as a cloud's root while a file-sync tool recreates it).
    public convenience init(onChange: @escaping @Sendable (String) -> Void, onLost: @escaping @Sendable () -> Void = {}) throws(FileError) {
        try self.init(naming: "inotify", onChange: onChange, onLost: onLost)
    }

    /// `path` names what an error is about.
    private init(naming path: String, onChange: @escaping @Sendable (String) -> Void, onLost: @escaping @Sendable () -> Void) throws(FileError) {
        inotify = inotify_init1(Int32(IN_CLOEXEC))
        guard inotify >= 0 else { throw FileError(path: path, operation: "watch", errno: errno) }
        var pipeEnds: [Int32] = [-1, -1]
        _ = pipe(&pipeEnds)
        control.withLock { $0.wakeUp = pipeEnds[1] }
        let descriptor = inotify, stopper = pipeEnds[0], ended = ended
        // Weak: the thread must not keep the watcher alive, whose deinit stops it.
        let thread = Thread { [weak self] in
            self?.control.withLock { $0.thread = pthread_self() }
            // The thread owns both descriptors and closes them when it ends.
            defer {
                close(descriptor)
                close(stopper)
                ended.signal()
            }
            var buffer = [UInt8](repeating: 0, count: 64 * 1024)
            while true {
                var fds = [pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0), pollfd(fd: stopper, events: Int16(POLLIN), revents: 0)]
                guard poll(&fds, 2, -1) >= 0 || errno == EINTR else { return }
                if fds[1].revents != 0 || fds[0].revents & Int16(POLLNVAL | POLLERR) != 0 { return }
                guard fds[0].revents != 0 else { continue }
                let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                guard count > 0 else { continue }
                var offset = 0
                while offset + MemoryLayout<inotify_event>.size <= count {
                    let (length, mask, name) = buffer.withUnsafeBytes { raw -> (Int, UInt32, String) in
                        let event = raw.loadUnaligned(fromByteOffset: offset, as: inotify_event.self)
                        let start = offset + MemoryLayout<inotify_event>.size
                        let bytes = raw[start..<min(count, start + Int(event.len))].prefix { $0 != 0 }
                        return (Int(event.len), event.mask, String(decoding: bytes, as: UTF8.self))
                    }
                    if mask & UInt32(IN_IGNORED | IN_Q_OVERFLOW) != 0 { onLost() }
                    if !name.isEmpty { onChange(name) }
                    offset += MemoryLayout<inotify_event>.size + length
                }
            }
        }
        thread.start()
    }

    private static let mask = UInt32(IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE)

    /// Watches one more directory (e.g. a peer folder that appeared); `false` if it cannot.
    @discardableResult
    public func add(_ directory: String) -> Bool {
        inotify_add_watch(inotify, directory, Self.mask) >= 0
    }

    /// Stops watching and, unless called from `onChange` itself, returns only once the thread
    /// has ended: a callback still running after its owner closed would act on a device or
    /// folder the owner has let go of (a coordinator opened a store after `close()`, in a
    /// device folder a test had already deleted).
    public func stop() {
        let onThread = control.withLock { control -> Bool? in
            guard control.wakeUp >= 0 else { return nil }
            _ = write(control.wakeUp, "x", 1)
            close(control.wakeUp)
            control.wakeUp = -1
            return control.thread.map { pthread_equal($0, pthread_self()) != 0 } ?? false
        }
        if onThread == false { ended.wait() }
    }

    deinit { stop() }
}
