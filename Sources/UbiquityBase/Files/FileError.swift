import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A failed file operation, with the path and the system's reason.
public struct FileError: Error, CustomStringConvertible, Sendable {
    public let path: String
    public let operation: String
    public let message: String
    /// The `errno` value, when the system reported one (`ENOSPC` = disk full, `EDQUOT` = quota).
    public let code: Int32?

    package init(path: String, operation: String, errno code: Int32) {
        self.path = path
        self.operation = operation
        self.message = String(cString: strerror(code))
        self.code = code
    }

    package init(path: String, operation: String, message: String) {
        self.path = path
        self.operation = operation
        self.message = message
        self.code = nil
    }

    public var description: String { "cannot \(operation) \(path): \(message)" }
}
