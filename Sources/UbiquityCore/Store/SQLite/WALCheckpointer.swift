import CSQLite
import Foundation

/// Checkpoints a WAL database after a local save on a thread of its own, through a connection
/// of its own.
///
/// SQLite's automatic checkpoint runs inside the commit that fills the WAL past a thousand
/// pages, and copies them all into the database file before that commit returns: a save of
/// 10,000 objects waited for it, about as long as for the rest of its commit. The store's
/// connection reports each commit's WAL size here instead (`sqlite3_wal_hook`, which replaces
/// the automatic checkpoint). Past the same thousand pages, a commit made while
/// `besideCommits` is set (a local save, whose caller waits for it) leaves the copy to a
/// PASSIVE checkpoint beside the store: it never waits for the writer or a reader, copies what
/// no reader still needs, and leaves the rest to the next one; at most one runs at a time.
/// Every other commit — an import, a join, both already in the background and beside the
/// import's decoding on the second core, where a checkpoint slowed the next batch — and a bulk
/// save past sixteen times the threshold checkpoint themselves, as SQLite would (`committed`).
/// `stop` waits for the checkpoint beside and closes its connection, so that the store's
/// connection, closing last, checkpoints what is left as SQLite always does.
final class WALCheckpointer: @unchecked Sendable {
    // @unchecked: its connection and flags are used only under `condition`, which its thread waits on.
    /// SQLite's automatic checkpoint threshold, in WAL frames (pages).
    static let defaultThreshold: Int32 = 1000

    private let path: String
    private let threshold: Int32
    private let condition = NSCondition()
    private var running = false, stopped = false
    /// Set by the store around the commit of a local save (under the store's lock).
    var besideCommits = false
    /// How many checkpoints ran beside the commits (tests look).
    private(set) var checkpointsBeside = 0
    /// Opened by the first checkpoint; touched only by the checkpoint running, or by `stop`
    /// once none runs.
    private var connection: OpaquePointer?

    init(path: String, threshold: Int32 = defaultThreshold) {
        self.path = path
        self.threshold = threshold
    }

    /// Reports a commit that left `frames` pages in the WAL. Returns whether the commit should
    /// checkpoint itself, as SQLite would: when it is no local save, or a bulk one past sixteen
    /// times the threshold (64 MiB, the store's page cache), whose WAL the reads after it would
    /// search page by page. Otherwise starts a checkpoint beside it, unless one runs.
    func committed(frames: Int32) -> Bool {
        guard frames >= threshold else { return false }
        if !besideCommits || frames >= 16 * threshold { return true }
        condition.lock()
        defer { condition.unlock() }
        guard !running, !stopped else { return false }
        running = true
        checkpointsBeside += 1
        // A thread of its own, as the log encoding's: a saturated dispatch queue must never hold
        // back the copy the WAL's size waits for.
        Thread.detachNewThread { [self] in
            checkpoint()
            condition.lock()
            running = false
            condition.broadcast()
            condition.unlock()
        }
        return false
    }

    private func checkpoint() {
        if connection == nil {
            var handle: OpaquePointer?
            guard sqlite3_open_v2(path, &handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nil) == SQLITE_OK else {
                // Nothing is lost: the WAL keeps every page, and the next commit asks again.
                sqlite3_close_v2(handle)
                return
            }
            // A connection learns that the file is in WAL mode only by reading it: until then a
            // checkpoint finds no WAL and does nothing.
            guard sqlite3_exec(handle, "PRAGMA schema_version", nil, nil, nil) == SQLITE_OK else {
                sqlite3_close_v2(handle)
                return
            }
            connection = handle
        }
        // PASSIVE: never waits, so a busy answer only means "later".
        _ = sqlite3_wal_checkpoint_v2(connection, "main", SQLITE_CHECKPOINT_PASSIVE, nil, nil)
    }

    /// Waits for a checkpoint in progress, if any (tests look at what it did).
    func waitUntilIdle() {
        condition.lock()
        while running { condition.wait() }
        condition.unlock()
    }

    /// Waits for a checkpoint in progress and closes the connection; none starts after.
    func stop() {
        condition.lock()
        stopped = true
        while running { condition.wait() }
        condition.unlock()
        if let connection { sqlite3_close_v2(connection) }
        connection = nil
    }

    /// Hands `database`'s commits to `checkpointer` (the hook holds it unretained: the database
    /// keeps it alive and stops it before closing).
    static func install(_ checkpointer: WALCheckpointer, on handle: OpaquePointer) {
        sqlite3_wal_hook(handle, { context, database, name, frames in
            guard let context, let name, strcmp(name, "main") == 0 else { return SQLITE_OK }
            if Unmanaged<WALCheckpointer>.fromOpaque(context).takeUnretainedValue().committed(frames: frames) {
                // What SQLite's own hook does; busy (a checkpoint beside it) only means "later".
                _ = sqlite3_wal_checkpoint(database, name)
            }
            return SQLITE_OK
        }, Unmanaged.passUnretained(checkpointer).toOpaque())
    }
}
