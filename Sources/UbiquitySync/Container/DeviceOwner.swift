import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Who holds a lock that was refused (`DeviceError.inUse`): another process, this one (a second
/// peer or coordinator opened here on the same device), or a holder that could not be found.
public enum DeviceOwner: Equatable, Sendable, CustomStringConvertible {
    case process(pid: Int32)
    case thisProcess
    case unknown

    public var description: String {
        switch self {
        case let .process(pid): return "another process (pid \(pid))"
        case .thisProcess: return "this process (a peer or coordinator opened on it here; close that one first)"
        case .unknown: return "another process (its pid could not be found)"
        }
    }

    /// The holder of the `flock` on the file `descriptor` is open on, as the kernel tells it
    /// (`/proc/locks`, matched by the file's device and inode), else the pid the holder wrote
    /// into the file (`fallbackText`), which it may not have written yet.
    static func holding(descriptor: Int32, fallbackText: String) -> DeviceOwner {
        var status = stat()
        if fstat(descriptor, &status) == 0, let pid = lockHolder(device: UInt64(status.st_dev), inode: UInt64(status.st_ino)) {
            return pid == getpid() ? .thisProcess : .process(pid: pid)
        }
        guard let pid = Int32(fallbackText), pid > 0 else { return .unknown }
        return pid == getpid() ? .thisProcess : .process(pid: pid)
    }

    /// The pid holding a `flock` on the file `device`/`inode`, from `/proc/locks` (Linux); `nil`
    /// when none is listed or the list cannot be read.
    static func lockHolder(device: UInt64, inode: UInt64) -> Int32? {
        guard let text = try? String(contentsOfFile: "/proc/locks", encoding: .utf8) else { return nil }
        // The kernel's encoding of a device number (`MAJOR`/`MINOR` of <sys/sysmacros.h>), in hex.
        let major = ((device >> 8) & 0xfff) | ((device >> 32) & ~UInt64(0xfff))
        let minor = (device & 0xff) | ((device >> 12) & ~UInt64(0xff))
        let file = String(major, radix: 16, uppercase: false) + ":" + String(minor, radix: 16, uppercase: false) + ":" + String(inode)
        // "1: FLOCK  ADVISORY  WRITE 1234 08:01:5678 0 EOF"; a waiter's line has "->" before FLOCK.
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: " ")
            guard fields.count >= 6, fields[1] == "FLOCK", fields[3] == "WRITE", let pid = Int32(fields[4]), pid > 0 else { continue }
            if Self.sameFile(String(fields[5]), file) { return pid }
        }
        return nil
    }

    /// `/proc/locks` prints the device as `%02x:%02x`: compare the numbers, not the padding.
    private static func sameFile(_ listed: String, _ wanted: String) -> Bool {
        let a = listed.split(separator: ":"), b = wanted.split(separator: ":")
        guard a.count == 3, b.count == 3, a[2] == b[2] else { return false }
        return UInt64(a[0], radix: 16) == UInt64(b[0], radix: 16) && UInt64(a[1], radix: 16) == UInt64(b[1], radix: 16)
    }
}
