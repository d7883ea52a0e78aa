import Foundation
import Ubiquity

/// Where the durable comparisons run: on a real disk, where an fsync waits for the device.
/// On tmpfs (a `TMPDIR` in /dev/shm) an fsync costs nothing, so a durable save would be
/// compared by its CPU alone. `UBIQ_BENCH_DISK_DIR` names the folder; without it, the first
/// of `TMPDIR`, the current directory and /var/tmp that is not on tmpfs.
struct DiskDirectory {
    /// The folder the scratch directories are made in (with a trailing slash).
    let base: String
    /// The file system's name as `statfs` reports it ("ext4", "tmpfs", …).
    let fileSystem: String

    init() {
        let environment = ProcessInfo.processInfo.environment
        let chosen: String
        if let named = environment["UBIQ_BENCH_DISK_DIR"], !named.isEmpty {
            chosen = named
        } else {
            let candidates = [NSTemporaryDirectory(), FileManager.default.currentDirectoryPath, "/var/tmp"]
            chosen = candidates.first { Self.fileSystem(of: $0) != "tmpfs" } ?? candidates[0]
        }
        base = chosen.hasSuffix("/") ? chosen : chosen + "/"
        fileSystem = Self.fileSystem(of: base)
    }

    /// A fresh scratch directory on this disk.
    func scratch() throws -> ScratchDirectory { try ScratchDirectory(in: base) }

    /// The type of the file system holding `path` ("ext4", "tmpfs", …).
    static func fileSystem(of path: String) -> String { FileSystemType(of: path).name }
}
