#if canImport(Glibc)
import Glibc
#endif

/// What a file system entry is, in words: errors and `doctor` name what lies where a regular
/// file belongs.
enum FileKind {
    /// `nil` for a regular file, else what the entry of mode `mode` is ("a FIFO", "a folder"…).
    static func notRegular(_ mode: mode_t) -> String? {
        switch mode & S_IFMT {
        case S_IFREG: return nil
        case S_IFDIR: return "a folder"
        case S_IFLNK: return "a symbolic link"
        case S_IFIFO: return "a FIFO"
        case S_IFSOCK: return "a socket"
        case S_IFCHR, S_IFBLK: return "a device node"
        default: return "an unknown kind of file"
        }
    }
}
