/// Why a bug report could not be written or replayed.
public enum BugReportError: Error, Equatable, CustomStringConvertible {
    /// The folder the archive was to be written in does not exist.
    case outputFolderMissing(String)
    /// The output path names a folder, not a file.
    case outputIsAFolder(String)
    /// The archive unpacked, but holds no bug report's manifest.
    case notABugReport(String)
    /// The manifest is there but cannot be read, or misses a field.
    case unreadableManifest(String, String)
    /// A replay's work directory already holds files.
    case workDirectoryNotEmpty(String)

    public var description: String {
        switch self {
        case .outputFolderMissing(let folder): return "cannot write the bug report: the folder \(folder) does not exist"
        case .outputIsAFolder(let path): return "cannot write the bug report: \(path) is a folder (give a file name)"
        case .notABugReport(let path): return "\(path) is not a bug report (it holds no \(BugReport.manifestName))"
        case .unreadableManifest(let path, let reason): return "the manifest of \(path) cannot be read: \(reason)"
        case .workDirectoryNotEmpty(let path): return "the work directory \(path) is not empty (give a new or empty one)"
        }
    }
}
