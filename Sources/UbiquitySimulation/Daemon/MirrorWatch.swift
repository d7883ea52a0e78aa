import Foundation
import Ubiquity
#if canImport(Glibc)
import Glibc
#endif

/// The regular files of a device's mirror, kept current with inotify: each `refresh()` looks
/// again only at the entries events named since the last one, instead of walking the mirror.
/// Its files are the ones `FileTree.list(root, under: account)` finds, for every account.
///
/// The device's app writes into its mirror without telling the simulation which files (its
/// receipts, its logs), so the daemon listed the whole mirror at every scan; the kernel knows.
/// A new folder is watched before it is listed, so files written into it before the watch
/// existed are found by the listing and later ones by their events. A lost event (queue
/// overflow) or a mirror replaced makes it list everything again; a watch it cannot add
/// (out of inotify watches) makes `refresh()` return `false` for good, and the daemon walks.
final class MirrorWatch {
    let root: String
    private var inotify: Int32 = -1
    private var broken = false
    /// Watched folders: path relative to the root ("" is the root) by descriptor, and back.
    private var folders: [Int32: String] = [:]
    private var watches: [String: (descriptor: Int32, inode: UInt64)] = [:]
    /// Files by account (the first path component), keyed by path relative to the root.
    private var accounts: [String: [String: FileTree.Signature]] = [:]
    /// Files with more than one name (hard links) as last seen, with their inodes.
    private var linked: [String: UInt64] = [:]
    /// Inodes whose names changed in this refresh: their other names are looked at too.
    private var relinked: Set<UInt64> = []
    /// Paths changed since the last `takeChanges()`, with the signature each had then.
    private var before: [String: FileTree.Signature?] = [:]

    private static let mask = UInt32(IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_MODIFY | IN_CLOSE_WRITE | IN_ATTRIB
        | IN_DELETE_SELF | IN_MOVE_SELF)

    /// Where events are read (made once: a daemon refreshes at every scan).
    private let events = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: MemoryLayout<inotify_event>.alignment)

    init(root: String) { self.root = root }

    deinit {
        if inotify >= 0 { close(inotify) }
        events.deallocate()
    }

    /// Takes in what happened since the last call. `false`: the mirror cannot be watched (the
    /// caller lists it instead).
    func refresh() -> Bool {
        if broken { return false }
        if inotify < 0 {
            inotify = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
            guard inotify >= 0 else { broken = true; return false }
            reset()
            return !broken
        }
        var named: Set<String> = []
        var overflow = watches[""] == nil
        while !overflow {
            let count = read(inotify, events.baseAddress, events.count)
            guard count > 0 else { break }
            let raw = UnsafeRawBufferPointer(events)
            var offset = 0
            parsing: while offset + MemoryLayout<inotify_event>.size <= count {
                let event = raw.loadUnaligned(fromByteOffset: offset, as: inotify_event.self)
                let start = offset + MemoryLayout<inotify_event>.size
                offset = start + Int(event.len)
                if event.mask & UInt32(IN_Q_OVERFLOW) != 0 { overflow = true; break parsing }
                guard let folder = folders[event.wd] else { continue }
                if event.mask & UInt32(IN_IGNORED) != 0 {
                    // The folder went (or was moved): its parent's events name it too.
                    // Its entry stays for `drop`, with an inode no folder has: one made
                    // in its place (maybe with its inode number) is watched anew.
                    folders[event.wd] = nil
                    if watches[folder]?.descriptor == event.wd { watches[folder] = (-1, .max) }
                    if folder.isEmpty { overflow = true } else { named.insert(folder) }
                    continue
                }
                if folder.isEmpty, event.mask & UInt32(IN_DELETE_SELF | IN_MOVE_SELF) != 0 { overflow = true; continue }
                // The name is NUL-padded to `len` bytes.
                let padded = min(count, start + Int(event.len)) - start, name = raw.baseAddress! + start
                let length = memchr(name, 0, padded).map { UnsafeRawPointer($0) - name } ?? padded
                guard length > 0 else { continue }
                let text = String(decoding: UnsafeRawBufferPointer(start: name, count: length), as: UTF8.self)
                named.insert(folder.isEmpty ? text : folder + "/" + text)
            }
        }
        if overflow {
            // Whatever is still queued belongs to the old watches.
            close(inotify)
            inotify = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
            guard inotify >= 0 else { broken = true; return false }
            reset()
            return !broken
        }
        // A file with several names changes (its change time) when another name comes or
        // goes, and only that name's folder hears of it: such files are looked at every time,
        // and a name that comes or goes makes the file's other names be looked at.
        named.formUnion(linked.keys)
        // Parents before children; folders that appear are watched once every removal is done,
        // so a folder moved within the mirror gets a watch of its own name.
        var appeared: [String] = []
        for path in named.sorted() { look(at: path, appeared: &appeared) }
        for path in appeared where watches[path] == nil { add(path) }
        if !relinked.isEmpty {
            // Rare (a link made or removed): the other names are found by a walk of the list.
            var others: [String] = []
            for (_, files) in accounts { for (path, signature) in files where relinked.contains(signature.inode) { others.append(path) } }
            relinked.removeAll()
            appeared.removeAll()
            for path in others.sorted() { look(at: path, appeared: &appeared) }
            for path in appeared where watches[path] == nil { add(path) }
            relinked.removeAll()
        }
        return !broken
    }

    /// Takes in what is at `path` now (named by an event); a folder that appeared is left in
    /// `appeared`, the inode of a file whose names changed in `relinked`.
    private func look(at path: String, appeared: inout [String]) {
        let wasLinked = linked.removeValue(forKey: path)
        if let wasLinked { relinked.insert(wasLinked) }
        // Gone with its folder: listed again with the folder if it is still there.
        guard watches[Self.parent(of: path)] != nil else { return }
        let info = Self.status(root + "/" + path, depth: Self.depth(of: path))
        let wasFolder = watches[path] != nil
        switch info.map({ $0.st_mode & S_IFMT }) {
        case S_IFREG?:
            if wasFolder { drop(path) }
            guard let info else { return }
            if info.st_nlink > 1 {
                // A `.nosync` name is never listed, but as a second name it changes the file.
                linked[path] = UInt64(info.st_ino)
                if wasLinked != UInt64(info.st_ino) { relinked.insert(UInt64(info.st_ino)) }
            }
            if path.contains("/") && !path.hasSuffix(".nosync") { set(path, FileTree.Signature(info)) }
        case S_IFDIR? where !path.hasSuffix(".nosync"):
            set(path, nil)
            if watches[path]?.inode != UInt64(info!.st_ino) {
                if wasFolder { drop(path) }
                appeared.append(path)
            }
        default:
            set(path, nil)
            if wasFolder { drop(path) }
        }
    }

    /// The files of `account` (`FileTree.list(root, under: account).files`).
    func files(under account: String) -> [String: FileTree.Signature] { accounts[account] ?? [:] }

    /// The paths whose signature differs from the last call's (added, changed or gone).
    func takeChanges() -> Set<String> {
        var changed: Set<String> = []
        for (path, old) in before where old != accounts[Self.account(of: path)]?[path] { changed.insert(path) }
        before.removeAll(keepingCapacity: true)
        return changed
    }

    // MARK: The tree

    /// Forgets every watch and lists the mirror again.
    private func reset() {
        folders.removeAll()
        watches.removeAll()
        linked.removeAll()
        let old = accounts
        accounts.removeAll()
        for (_, files) in old { for (path, signature) in files where before.index(forKey: path) == nil { before[path] = signature } }
        add("")
        relinked.removeAll()
    }

    /// Watches the folder at `path`, then lists it (and so on down): a file written before the
    /// watch is in the listing, one written after has an event.
    private func add(_ path: String) {
        let depth = Self.depth(of: path)
        // The root and each account folder are followed as `FileTree.list` opens them; below, never.
        let flags = UInt32(IN_ONLYDIR) | (depth > 1 ? UInt32(IN_DONT_FOLLOW) : 0)
        let full = path.isEmpty ? root : root + "/" + path
        let descriptor = inotify_add_watch(inotify, full, Self.mask | flags)
        guard descriptor >= 0 else {
            // Gone again (its parent's events say so); anything else: no more watches to have.
            if errno != ENOENT && errno != ENOTDIR && errno != ELOOP { broken = true }
            return
        }
        if let other = folders[descriptor], other != path { drop(other) }
        guard let directory = opendir(full) else { return }
        defer { closedir(directory) }
        let folder = dirfd(directory)
        var own = stat()
        guard fstat(folder, &own) == 0 else { return }
        folders[descriptor] = path
        watches[path] = (descriptor, UInt64(own.st_ino))
        var subfolders: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            guard name != "." && name != ".." else { continue }
            let child = path.isEmpty ? name : path + "/" + name
            var info = stat()
            guard fstatat(folder, name, &info, depth == 0 ? 0 : AT_SYMLINK_NOFOLLOW) == 0 else { continue }
            if name.hasSuffix(".nosync") {
                // Never listed; a second name of a listed file is kept to hear of it.
                if info.st_mode & S_IFMT == S_IFREG && info.st_nlink > 1 { noteLinked(child, UInt64(info.st_ino)) }
                continue
            }
            switch info.st_mode & S_IFMT {
            case S_IFDIR: subfolders.append(child)
            case S_IFREG:
                guard depth > 0 else { break }
                set(child, FileTree.Signature(info))
                if info.st_nlink > 1 { noteLinked(child, UInt64(info.st_ino)) }
            default: break
            }
        }
        for child in subfolders where watches[child] == nil { add(child) }
    }

    /// A name of a file with several, found in a listing: a new one changed the others.
    private func noteLinked(_ path: String, _ inode: UInt64) {
        if linked.updateValue(inode, forKey: path) != inode { relinked.insert(inode) }
    }

    /// Forgets the folder at `path` and everything under it (its watches end).
    private func drop(_ path: String) {
        let prefix = path + "/"
        for (folder, watch) in watches where folder == path || folder.hasPrefix(prefix) || path.isEmpty {
            if watch.descriptor >= 0 { inotify_rm_watch(inotify, watch.descriptor) }
            if watch.descriptor >= 0 { folders[watch.descriptor] = nil }
            watches[folder] = nil
        }
        for (name, inode) in linked where name.hasPrefix(prefix) || path.isEmpty {
            linked[name] = nil
            relinked.insert(inode)
        }
        let account = Self.account(of: path)
        guard let files = accounts[account] else { return }
        if !path.contains("/") {
            for path in files.keys { set(path, nil) }
        } else {
            for path in files.keys where path.hasPrefix(prefix) { set(path, nil) }
        }
    }

    private func set(_ path: String, _ signature: FileTree.Signature?) {
        let account = Self.account(of: path)
        let old = accounts[account]?[path]
        guard old != signature else { return }
        if before.index(forKey: path) == nil { before[path] = old }
        if let signature {
            accounts[account, default: [:]][path] = signature
        } else {
            accounts[account]?[path] = nil
        }
    }

    // MARK: Paths

    private static func account(of path: String) -> String {
        path.firstIndex(of: "/").map { String(path[..<$0]) } ?? path
    }

    private static func parent(of path: String) -> String {
        path.lastIndex(of: "/").map { String(path[..<$0]) } ?? ""
    }

    private static func depth(of path: String) -> Int {
        guard !path.isEmpty else { return 0 }
        var path = path
        // A pointer loop: a debug build runs `reduce` over the bytes in generic code.
        return path.withUTF8 { utf8 in
            var depth = 1, offset = 0
            let count = utf8.count
            while offset < count {
                if utf8.baseAddress![offset] == UInt8(ascii: "/") { depth += 1 }
                offset += 1
            }
            return depth
        }
    }

    /// `lstat`, but an account folder (depth 1) is followed as `FileTree.list` opens it.
    private static func status(_ path: String, depth: Int) -> stat? {
        var info = stat()
        let result = depth == 1 ? stat(path, &info) : lstat(path, &info)
        return result == 0 ? info : nil
    }
}
