import Foundation

/// A file's modification time to the nanosecond: what a copy of a folder must keep when
/// readers order or judge its files by their times (a bundle's model versions, how long a log
/// has waited).
package struct FileTime: Codable, Equatable, Sendable {
    package var seconds: Int64
    package var nanoseconds: Int64

    package init(seconds: Int64, nanoseconds: Int64) {
        self.seconds = seconds
        self.nanoseconds = nanoseconds
    }

    /// The modification time of the file at `path` (a link's own, never its target's).
    package static func modification(of path: String) -> FileTime? {
        var status = stat()
        guard lstat(path, &status) == 0 else { return nil }
        return FileTime(seconds: Int64(status.st_mtim.tv_sec), nanoseconds: Int64(status.st_mtim.tv_nsec))
    }

    /// Sets the access and modification times of the file at `path` to this time.
    package func set(on path: String) throws(FileError) {
        let time = timespec(tv_sec: time_t(seconds), tv_nsec: Int(nanoseconds))
        var times = [time, time]
        guard utimensat(AT_FDCWD, path, &times, AT_SYMLINK_NOFOLLOW) == 0 else {
            throw FileError(path: path, operation: "set the time of", errno: errno)
        }
    }

    /// Gives the file at `target` the modification time of the one at `source`.
    package static func copy(from source: String, to target: String) throws(FileError) {
        guard let time = modification(of: source) else { throw FileError(path: source, operation: "stat", errno: errno) }
        try time.set(on: target)
    }
}
