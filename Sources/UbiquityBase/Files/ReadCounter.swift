import Foundation
import Synchronization

/// Counts the files `AtomicFile.read` reads within a task: tests check that a sync does not
/// read again what it already knows to be bad (a count, not a time).
package final class ReadCounter: Sendable {
    /// The counter of the current task, if a test set one (`ReadCounter.$current.withValue`).
    @TaskLocal package static var current: ReadCounter?

    private let paths = Mutex<[String]>([])

    package init() {}

    func count(_ path: String) { paths.withLock { $0.append(path) } }

    /// Every path read so far, in order (a file read twice is listed twice).
    package var reads: [String] { paths.withLock { $0 } }
}
