import Foundation
import Synchronization
import UbiquityBase
import UbiquitySync

/// The thread on which a coordinator imports while the app runs (`LiveImport`). It watches
/// the current account's part of the cloud and runs a round of sync as soon as something lands
/// there; a change during a round leaves a wake-up behind, so one more round follows, and a
/// burst of files costs a round or two, not one each (as the daemon's notifications were
/// coalesced). It asks the coordinator what to watch before every round, so it follows
/// account switches, sign-out and the initial import's handover by itself.
final class LiveImporter: Sendable {
    /// The account store's part of the cloud, as the coordinator has it now.
    struct Target {
        let location: ContainerLocation
        let peerID: String
    }

    private let mode: LiveImport
    private let target: @Sendable () -> Target?
    private let round: @Sendable () throws -> SyncSummary?
    private let report: @Sendable (LiveImportActivity) -> Void
    private let wakeUp = DispatchSemaphore(value: 0)
    private let state = Mutex(State())
    private let ended = DispatchSemaphore(value: 0)

    private struct State {
        var stopped = false
        /// The import thread, once it runs (`stop` called from it must not wait for itself).
        var thread: pthread_t?
        /// A watched folder went or events were dropped since the last round.
        var watchesLost = false
    }

    /// The safety pass while every watch holds.
    static let watchedInterval = 30.0
    /// The pass while something may go unseen (a lost watch, a network file system, a round
    /// that failed and waits, perhaps for the key).
    static let unwatchedInterval = 1.0
    /// The pass while there is nothing to watch (signed out, a fallback store's initial import).
    static let idleInterval = 5.0

    /// Starts the thread. `target` says what to watch now (`nil`: nothing); `round` runs one
    /// round of sync on the store the app works on, `nil` when that store does not sync;
    /// `report` is told what happens.
    init(mode: LiveImport, target: @escaping @Sendable () -> Target?, round: @escaping @Sendable () throws -> SyncSummary?,
         report: @escaping @Sendable (LiveImportActivity) -> Void) {
        self.mode = mode
        self.target = target
        self.round = round
        self.report = report
        let thread = Thread { [self] in
            defer { ended.signal() }
            state.withLock { $0.thread = pthread_self() }
            run()
        }
        thread.name = "ubiquity.live-import"
        thread.start()
    }

    /// Asks for a round now (the store the app works on changed).
    func wake() { wakeUp.signal() }

    /// Stops the thread and waits for a round in progress to end (unless called from that round,
    /// by an observer of its events).
    func stop() {
        let first = state.withLock { state in
            defer { state.stopped = true }
            return !state.stopped
        }
        guard first else { return }
        wakeUp.signal()
        let onThread = state.withLock { $0.thread.map { pthread_equal($0, pthread_self()) != 0 } ?? false }
        if !onThread { ended.wait() }
    }

    private var isStopped: Bool { state.withLock { $0.stopped } }

    private func run() {
        var watcher: DirectoryWatcher?
        defer { watcher?.stop() }
        var watching: String?
        /// The inode of the root when it was watched: a folder deleted while this process still
        /// holds it open tells its watch nothing until it is closed, so the path is checked too.
        var watchedInode: UInt64?
        var waiting: String?
        var wasIdle = false
        var remote = (root: "", missesWrites: false)
        while !isStopped {
            let lost = state.withLock { state in
                defer { state.watchesLost = false }
                return state.watchesLost
            }
            var interval = Self.idleInterval
            if let target = target() {
                wasIdle = false
                let root = target.location.ubiquityRoot
                if remote.root != root { remote = (root, FileSystemType(of: target.location.cloud).missesOtherMachinesWrites) }
                var holds = false
                if mode == .automatic {
                    if watcher == nil { watcher = makeWatcher() }
                    holds = watcher.map { Self.watch(target, with: $0) } ?? false
                    if holds && (watching != root || lost) { report(.watching(root: root, peerID: target.peerID)) }
                    watching = holds ? root : nil
                    watchedInode = holds ? DirectoryEntry.at(root)?.inode : nil
                }
                waiting = runRound(waiting: waiting)
                switch mode {
                case let .polling(seconds): interval = seconds
                default: interval = holds && !remote.missesWrites && waiting == nil ? Self.watchedInterval : Self.unwatchedInterval
                }
            } else {
                if !wasIdle { report(.idle) }
                wasIdle = true
                watching = nil
                watchedInode = nil
                // A fallback's initial import that failed is tried again from the round.
                waiting = runRound(waiting: waiting)
            }
            waitForWork(interval, root: watching, inode: watchedInode)
        }
    }

    /// Waits `interval` seconds or until woken; meanwhile, every second, makes sure the watched
    /// root is still the folder at its path (else its watches are lost). Wake-ups already
    /// queued are served by the round that follows.
    private func waitForWork(_ interval: Double, root: String?, inode: UInt64?) {
        let deadline = Date().addingTimeInterval(interval)
        while !isStopped {
            let left = deadline.timeIntervalSinceNow
            guard left > 0 else { break }
            if wakeUp.wait(timeout: .now() + min(left, Self.unwatchedInterval)) == .success { break }
            if let root, let inode, DirectoryEntry.at(root)?.inode != inode {
                state.withLock { $0.watchesLost = true }
                break
            }
        }
        while wakeUp.wait(timeout: .now()) == .success {}
    }

    /// One round; returns what it waits for now (`nil` when the round succeeded).
    private func runRound(waiting: String?) -> String? {
        do {
            guard let summary = try round() else { return waiting }
            if waiting != nil { report(.resumed) }
            report(.synced(summary))
            return nil
        } catch {
            let reason = "\(error)"
            if reason != waiting { report(.waiting(reason: reason)) }
            return reason
        }
    }

    private func makeWatcher() -> DirectoryWatcher? {
        try? DirectoryWatcher(onChange: { [weak self] name in
            if !ContainerLocation.isTemporary(name) { self?.wakeUp.signal() }
        }, onLost: { [weak self] in
            self?.state.withLock { $0.watchesLost = true }
            self?.wakeUp.signal()
        })
    }

    /// Watches the root and every folder other peers' files land in (each pass adds them
    /// again: a file-sync tool creates folders late, and a content removal recreates them).
    /// This peer's own folders are left out: its own saves would wake it for nothing. Returns
    /// whether every folder that exists is watched.
    private static func watch(_ target: Target, with watcher: DirectoryWatcher) -> Bool {
        let location = target.location
        // The root goes with a content removal elsewhere or a file-sync tool's rebuild of the
        // cloud; while the cloud folder itself is there, make it again to watch it.
        if !FileManager.default.fileExists(atPath: location.ubiquityRoot) && FileManager.default.fileExists(atPath: location.cloud) {
            try? AtomicFile.makeDirectory(location.ubiquityRoot)
        }
        guard watcher.add(location.ubiquityRoot) else { return false }
        let own: Set = [location.peerDirectory(of: target.peerID), location.contentDirectory(of: target.peerID), location.logDirectory(of: target.peerID)]
        var holds = true
        for directory in ContainerScan.foldersToWatch(location) where !own.contains(directory) {
            // A folder not made yet is seen coming by its parent's watch.
            if !watcher.add(directory) && FileManager.default.fileExists(atPath: directory) { holds = false }
        }
        return holds
    }
}
