import Foundation

/// Where a scenario's cloud and devices live unless told (`--work`): in a RAM-backed folder
/// (`/dev/shm`) when the system has one and `TMPDIR` does not name another place. The devices
/// still run every fsync of the real code path; on a disk each one waits for the disk, for
/// durability that cannot matter in simulated time, and a run of thousands of saves spent
/// most of its wall time there. The crash-safety tests keep their own folders.
public enum ScenarioScratch {
    /// The folder new work directories go in, ending in `/`.
    public static var root: String {
        let environment = ProcessInfo.processInfo.environment
        if environment["TMPDIR"].map({ !$0.isEmpty }) != true, access(memoryBacked, W_OK | X_OK) == 0 { return memoryBacked + "/" }
        return NSTemporaryDirectory()
    }

    static let memoryBacked = "/dev/shm"
}
