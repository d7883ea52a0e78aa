import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Watches directories with inotify and calls back with the names written, renamed or created
/// in them. A background thread blocks in `poll`, so nothing polls the disk in a loop;
/// `stop()` wakes it through a pipe and waits for it to end.
public final class DirectoryWatcher: @unchecked Sendable {
    private let inotify: Int32
    private var wakeUp: [Int32] = [-1, -1]
    private let thread: Thread
    /// Signalled by the thread as it ends: `stop()` waits for it, so no `onChange` runs after.
    private let ended = DispatchSemaphore(value: 0)

    /// Starts watching `directory`; `onChange` runs on the watcher's thread with each file name.
    public init(directory: String, onChange: @escaping @Sendable (String) -> Void) throws(FileError) {
        inotify = inotify_init1(Int32(IN_CLOEXEC))
        guard inotify >= 0 else { throw FileError(path: directory, operation: "watch", errno: errno) }
        guard inotify_add_watch(inotify, directory, Self.mask) >= 0 else {
            let error = FileError(path: directory, operation: "watch", errno: errno)
            close(inotify)
            throw error
        }
        var pipeEnds: [Int32] = [-1, -1]
        _ = pipe(&pipeEnds)
        wakeUp = pipeEnds
        let descriptor = inotify, stopper = pipeEnds[0], ended = ended
        thread = Thread {
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
                    let (length, name) = buffer.withUnsafeBytes { raw -> (Int, String) in
                        let event = raw.load(fromByteOffset: offset, as: inotify_event.self)
                        let start = offset + MemoryLayout<inotify_event>.size
                        let bytes = raw[start..<min(count, start + Int(event.len))].prefix { $0 != 0 }
                        return (Int(event.len), String(decoding: bytes, as: UTF8.self))
                    }
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
        guard wakeUp[1] >= 0 else { return }
        _ = write(wakeUp[1], "x", 1)
        close(wakeUp[1])
        wakeUp[1] = -1
        if Thread.current != thread { ended.wait() }
    }

    deinit { stop() }
}
