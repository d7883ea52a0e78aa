import Foundation

/// Counts the files `AtomicFile.read` reads within a task: tests check that a sync does not
/// read again what it already knows to be bad (a count, not a time).
package final class ReadCounter: @unchecked Sendable {
    /// The counter of the current task, if a test set one (`ReadCounter.$current.withValue`).
    @TaskLocal package static var current: ReadCounter?

    private let lock = NSLock()
    private var paths: [String] = []

    package init() {}

    func count(_ path: String) { lock.withLock { paths.append(path) } }

    /// Every path read so far, in order (a file read twice is listed twice).
    package var reads: [String] { lock.withLock { paths } }
}
