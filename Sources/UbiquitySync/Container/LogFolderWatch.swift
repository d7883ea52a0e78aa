import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// inotify watches on the log folders whose listings `LogFolderListings` keeps: the kernel
/// queues an event for a name that comes, goes or is renamed in a watched folder, and for a
/// file of it written or whose metadata changed, in the very call that makes the change, so a
/// listing made after the watch was added, and the metadata of its files asked after that,
/// stay true until an event names its folder, however recent the folder's last change. (A file
/// changed through a hard link in another folder, or on another machine of a network share,
/// is not told: `LogFolderListings.maximumAge` bounds how long that goes unseen.) One instance for the
/// process, used under the listings' lock. Where inotify is missing or out of watches, nothing
/// is watched and listings are kept by the settled rule alone.
struct LogFolderWatch {
    /// What the events since the last `takeChanges()` say.
    enum Changes {
        /// These folders had a name come or go, or a file written or changed, or lost their
        /// watch; `named`, for the folders whose names are told (`tellNames(in:)`), each name
        /// an event came with — `nil` when the event was the folder's own (moved, deleted, its
        /// watch lost, its own metadata changed). A name that went (deleted, renamed away) is
        /// not told.
        case folders(Set<String>, named: [(folder: String, name: String?)])
        /// Events were lost (the queue overflowed): any folder may have changed.
        case everything
    }

    /// The inotify descriptor; -1 before the first watch, -2 when inotify cannot be used.
    private var descriptor: Int32 = -1
    /// Watched folders by watch descriptor (one inode may be reached by several paths), and back.
    private var folders: [Int32: Set<String>] = [:]
    private var watches: [String: Int32] = [:]
    /// The watches whose events' names are told (`tellNames(in:)`).
    private var named: Set<Int32> = []

    private static let mask = UInt32(IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_DELETE_SELF | IN_MOVE_SELF
        | IN_MODIFY | IN_ATTRIB | IN_ONLYDIR | IN_DONT_FOLLOW)

    /// Whether `directory` is watched now (its listing's later changes will be told).
    func isWatched(_ directory: String) -> Bool { watches[directory] != nil }

    /// Folders watched at most: the kernel's watches are shared by every process of the user.
    static let capacity = 4096

    /// Watches `directory` (an absolute path, a real folder); `false` when it cannot be.
    mutating func watch(_ directory: String) -> Bool {
        if watches[directory] != nil { return true }
        guard watches.count < Self.capacity else { return false }
        if descriptor == -1 {
            descriptor = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
            if descriptor < 0 { descriptor = -2 }
        }
        guard descriptor >= 0 else { return false }
        let added = inotify_add_watch(descriptor, directory, Self.mask)
        guard added >= 0 else { return false }
        folders[added, default: []].insert(directory)
        watches[directory] = added
        return true
    }

    /// From now on, tells the names of `directory`'s events (`Changes.folders`, `named`);
    /// `false` when it is not watched.
    mutating func tellNames(in directory: String) -> Bool {
        guard let watch = watches[directory] else { return false }
        named.insert(watch)
        return true
    }

    /// The folders named by the events queued since the last call.
    mutating func takeChanges() -> Changes {
        guard descriptor >= 0, !watches.isEmpty else { return .folders([], named: []) }
        var changed: Set<String> = []
        var names: [(folder: String, name: String?)] = []
        let size = MemoryLayout<inotify_event>.size
        return withUnsafeTemporaryAllocation(byteCount: 16 * 1024, alignment: MemoryLayout<inotify_event>.alignment) { buffer -> Changes in
            while true {
                let count = read(descriptor, buffer.baseAddress, buffer.count)
                guard count > 0 else { return .folders(changed, named: names) }
                var offset = 0
                while offset + size <= count {
                    let event = UnsafeRawBufferPointer(buffer).loadUnaligned(fromByteOffset: offset, as: inotify_event.self)
                    let start = offset + size
                    offset = start + Int(event.len)
                    if event.mask & UInt32(IN_Q_OVERFLOW) != 0 {
                        // Drain what is left: the next listings start from a clean queue.
                        while read(descriptor, buffer.baseAddress, buffer.count) > 0 {}
                        return .everything
                    }
                    guard let paths = folders[event.wd] else { continue }
                    changed.formUnion(paths)
                    let own = event.mask & UInt32(IN_IGNORED | IN_DELETE_SELF | IN_MOVE_SELF) != 0
                    let went = event.mask & UInt32(IN_DELETE | IN_MOVED_FROM) != 0, isFolder = event.mask & UInt32(IN_ISDIR) != 0
                    let tells = named.contains(event.wd) && (own || !went)
                    // Read only when asked for (most events are neither): told, or a folder that went.
                    let name = own || !(tells || went && isFolder) ? nil
                        : Self.name(in: UnsafeRawBufferPointer(buffer), from: start, length: Int(event.len), end: count)
                    if tells {
                        for path in paths { names.append((path, name)) }
                    }
                    // A folder that went or moved away takes the watches at and below its path:
                    // a folder made there later is watched anew (a watch kept on the one that
                    // moved would tell nothing of it).
                    if own {
                        for path in paths { forget(path, changed: &changed, names: &names) }
                    } else if went, isFolder, let name {
                        for path in paths { forget(path + "/" + name, changed: &changed, names: &names) }
                    }
                }
            }
        }
    }

    /// Stops watching `path` and every folder below it (they changed: `changed`, and `names`
    /// for those whose names were told).
    private mutating func forget(_ path: String, changed: inout Set<String>, names: inout [(folder: String, name: String?)]) {
        let below = path + "/"
        for (folder, watch) in watches where folder == path || folder.hasPrefix(below) {
            watches[folder] = nil
            changed.insert(folder)
            if named.contains(watch) { names.append((folder, nil)) }
            folders[watch]?.remove(folder)
            guard folders[watch]?.isEmpty != false else { continue }
            // Its last path: the kernel's watch goes too (its IN_IGNORED then names nothing).
            inotify_rm_watch(descriptor, watch)
            folders[watch] = nil
            named.remove(watch)
        }
    }

    /// The NUL-padded name of an event at `start` in `buffer` (`nil` when there is none: the
    /// folder's own event).
    private static func name(in buffer: UnsafeRawBufferPointer, from start: Int, length: Int, end: Int) -> String? {
        let padded = min(end, start + length) - start
        guard padded > 0, let base = buffer.baseAddress else { return nil }
        let bytes = UnsafeRawBufferPointer(start: base + start, count: padded)
        let used = bytes.firstIndex(of: 0) ?? padded
        return used > 0 ? String(decoding: bytes[..<used], as: UTF8.self) : nil
    }

    /// Stops watching everything (the caller drops the listings that relied on the watches).
    mutating func reset() {
        if descriptor >= 0 {
            close(descriptor)
            descriptor = -1
        }
        folders.removeAll()
        watches.removeAll()
        named.removeAll()
    }
}
