import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The type of the file system a path is on, as the kernel names it ("ext4", "nfs4",
/// "fuse.sshfs", …), and whether inotify can be trusted there.
public struct FileSystemType: Sendable, Equatable, CustomStringConvertible {
    /// The kernel's name for the type, "unknown" when it cannot be told.
    public let name: String

    public init(name: String) { self.name = name }

    /// The type of the file system holding `path`: that of the longest mount point in
    /// /proc/self/mounts above its real path (Glibc's module has no `statfs`).
    public init(of path: String) {
        guard let real = realpath(path, nil) else {
            name = "unknown"
            return
        }
        let resolved = String(cString: real)
        free(real)
        guard let mounts = try? String(contentsOfFile: "/proc/self/mounts", encoding: .utf8) else {
            name = "unknown"
            return
        }
        var best = (length: -1, type: "unknown")
        for line in mounts.split(separator: "\n") {
            let fields = line.split(separator: " ")
            guard fields.count >= 3 else { continue }
            let point = fields[1].replacingOccurrences(of: "\\040", with: " ")
            let holds = point == "/" || resolved == point || resolved.hasPrefix(point + "/")
            if holds && point.count >= best.length { best = (point.count, String(fields[2])) }
        }
        name = best.type
    }

    /// Network and user-space file systems: inotify tells only of changes made through this
    /// machine's kernel, so files another machine writes there arrive without an event.
    public var missesOtherMachinesWrites: Bool {
        if name.hasPrefix("fuse") { return true }
        return ["nfs", "nfs4", "cifs", "smb3", "smbfs", "9p", "ceph", "glusterfs", "afs", "davfs", "virtiofs", "vboxsf", "lustre"].contains(name)
    }

    public var description: String { name }
}
