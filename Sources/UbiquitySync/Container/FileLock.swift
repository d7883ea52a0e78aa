import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// An exclusive `flock` on a file in a directory: one process owns a device at a time (its
/// `.lock`), and one peer at a time replaces a baseline (`.lock.nosync`). The lock is released
/// when the owner closes it or dies, so a crashed process never leaves it stuck.
public final class FileLock: Sendable {
    /// The locked file's descriptor; -1 once released.
    private let descriptor: Mutex<Int32>

    /// Takes the lock on `<directory>/<name>`, or throws `DeviceError.inUse` naming its holder
    /// (`DeviceOwner`: found by the kernel's list of locks, since the pid a holder writes into the
    /// file may not be there yet). With `wait`, blocks until the lock is free instead (for short
    /// critical sections).
    public init(directory: String, name: String = ".lock", wait: Bool = false) throws(DeviceError) {
        let path = directory + "/" + name
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw .unusable(directory, String(cString: strerror(errno))) }
        guard flock(descriptor, LOCK_EX | (wait ? 0 : LOCK_NB)) == 0 else {
            var buffer = [UInt8](repeating: 0, count: 32)
            let count = pread(descriptor, &buffer, buffer.count, 0)
            let written = count > 0 ? String(decoding: buffer[..<count], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines) : ""
            let owner = DeviceOwner.holding(descriptor: descriptor, fallbackText: written)
            close(descriptor)
            throw .inUse(directory, owner: owner)
        }
        let pid = Array("\(getpid())\n".utf8)
        ftruncate(descriptor, 0)
        _ = pid.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }
        self.descriptor = Mutex(descriptor)
    }

    /// Who holds the lock on `<directory>/<name>` now, found without taking it (a reader must
    /// not make the owner wait); `nil` when nobody does, or there is no such file.
    public static func holder(directory: String, name: String = ".lock") -> DeviceOwner? {
        var status = stat()
        guard stat(directory + "/" + name, &status) == 0,
              let pid = DeviceOwner.lockHolder(device: UInt64(status.st_dev), inode: UInt64(status.st_ino)) else { return nil }
        return pid == getpid() ? .thisProcess : .process(pid: pid)
    }

    /// Releases the lock (also done when the object goes away).
    public func release() {
        descriptor.withLock { descriptor in
            guard descriptor >= 0 else { return }
            flock(descriptor, LOCK_UN)
            close(descriptor)
            descriptor = -1
        }
    }

    deinit { release() }
}
