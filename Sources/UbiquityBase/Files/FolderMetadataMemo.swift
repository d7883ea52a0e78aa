import Synchronization

/// The metadata of a folder's files as `OpenFolder.entry` found it, kept while a watch of the
/// folder (inotify, with writes and attribute changes in its mask) has told no change in it:
/// a sync asks for the size and age of each of its own logs, and of logs waiting to import, at
/// every sync, and most of them have not changed since the last one.
///
/// Before every answer from the memo, `refresh` takes the events queued so far: whoever keeps
/// the watch calls `invalidate()` when one names the folder, or when it stops trusting the
/// watch. So a change made before a question (by this process or another on this machine) is
/// seen by it, as an `fstatat` would see it; the memo saves the name's lookup, not the look at
/// the queue. Once invalid, a memo stays invalid: its folder's next listing makes a new one.
public final class FolderMetadataMemo: Sendable {
    private struct State {
        var valid = true
        var entries: [String: DirectoryEntry?] = [:]
        var hits = 0
    }

    private let state = Mutex(State())
    private let refresh: @Sendable () -> Void

    /// `refresh`: takes the watch's queued events (which may call `invalidate()`); never called
    /// while this memo's own lock is held.
    public init(refresh: @escaping @Sendable () -> Void) {
        self.refresh = refresh
    }

    /// Whether the memo still answers.
    public var isValid: Bool { state.withLock { $0.valid } }

    /// How many answers came from the memo (for tests).
    public var hits: Int { state.withLock { $0.hits } }

    /// Stops answering from the memo, for good.
    public func invalidate() {
        state.withLock {
            $0.valid = false
            $0.entries = [:]
        }
    }

    /// Whether nothing in the folder changed since the memo was made, after the queued events
    /// are taken: what was read from its files since then is what they hold now.
    public func isCurrent() -> Bool {
        guard isValid else { return false }
        refresh()
        return isValid
    }

    /// The metadata kept for `name` (`.some(nil)`: it was not there), after the queued events
    /// are taken; `nil` when nothing is kept for it or the memo no longer holds.
    func entry(_ name: String) -> DirectoryEntry?? {
        // Only an answer from the memo needs the events: a miss is looked up afresh anyway.
        guard state.withLock({ $0.valid && $0.entries[name] != nil }) else { return nil }
        refresh()
        return known(name)
    }

    /// `entry(_:)` of each name, with one look at the events for them all (a miss is `nil`).
    func entries(_ names: [String]) -> [DirectoryEntry??] {
        guard isCurrent() else { return Array(repeating: nil, count: names.count) }
        return names.map { known($0) }
    }

    private func known(_ name: String) -> DirectoryEntry?? {
        state.withLock { state -> DirectoryEntry?? in
            guard state.valid, let known = state.entries[name] else { return nil }
            state.hits += 1
            return known
        }
    }

    /// Keeps what an `fstatat` found for `name`: a change after that look is queued, and the
    /// next question's `refresh` drops the memo before it could answer.
    func keep(_ name: String, _ entry: DirectoryEntry?) {
        state.withLock {
            guard $0.valid else { return }
            $0.entries[name] = entry
        }
    }
}
