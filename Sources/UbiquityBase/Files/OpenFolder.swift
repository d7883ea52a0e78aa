import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A folder opened once so that many of its files can be asked for their metadata by name
/// (`fstatat`) instead of by whole path (`lstat`), which walks every component of the path
/// again for each file: a sync asks for the size or age of many logs of one peer folder.
///
/// The folder is opened at the first question, then kept until the handle goes. A folder
/// replaced after that is not seen (its files are asked of the folder as it was opened);
/// callers use it within one pass over a listing, which sees the folder as it was listed anyway,
/// or, made with the folder's `identity`, for as long as a listing of it holds (a kept listing
/// is used only while the folder's `lstat`, its inode among it, is the one it was made under).
/// A folder that is a symbolic link is not opened, nor one that is not the folder of
/// `identity`. Few handles are open at a time (`limit`); past it, or when the folder cannot be
/// opened, questions go by path as before.
public final class OpenFolder: Sendable {
    /// The folder's path.
    public let path: String
    /// -1: not opened (yet, or it could not be, or the limit was reached).
    /// The folder's descriptor (-1 until opened, or when it could not be), and whether it was tried.
    private let handle = Mutex<(descriptor: Int32, tried: Bool)>((-1, false))

    /// Open handles in the process, at most `limit`: a container with thousands of peer
    /// folders must not use up the descriptors other code needs.
    private static let openCount = Mutex(0)
    public static let limit = 256

    /// Counts one more open handle unless `limit` are open.
    private static func reserve() -> Bool {
        openCount.withLock { count in
            guard count < limit else { return false }
            count += 1
            return true
        }
    }

    /// The device and inode the folder must have when it is opened (`nil`: any).
    private let identity: (device: UInt64, inode: UInt64)?

    /// What `entry(_:)` found, kept while a watch of the folder tells no change (`nil`: asked every time).
    public let memo: FolderMetadataMemo?

    /// `identity`: the folder's device and inode as a listing saw them; a folder found with
    /// another when it is opened is not opened (questions go by path). `memo`: where answers
    /// are kept while whoever watches the folder says they hold.
    public init(_ path: String, identity: (device: UInt64, inode: UInt64)? = nil, memo: FolderMetadataMemo? = nil) {
        self.path = path
        self.identity = identity
        self.memo = memo
    }

    deinit {
        let descriptor = handle.withLock { $0.descriptor }
        if descriptor >= 0 {
            close(descriptor)
            Self.openCount.withLock { $0 -= 1 }
        }
    }

    /// The metadata of `name` in this folder (`nil` when it is gone), as `DirectoryEntry.at`
    /// gives it for `path/name`; a symbolic link is not followed.
    public func entry(_ name: String) -> DirectoryEntry? {
        if let memo, let known = memo.entry(name) { return known }
        return look(name)
    }

    /// `entry(_:)` of each of `names`, in order, asked together: a memo looks at the watch's
    /// events once for all of them (a sync asks for each of its own logs).
    public func entries(_ names: [String]) -> [DirectoryEntry?] {
        guard let memo else { return names.map(look) }
        return zip(names, memo.entries(names)).map { name, known in known ?? look(name) }
    }

    /// The metadata of `name` from the file system (kept in the memo).
    private func look(_ name: String) -> DirectoryEntry? {
        let folder = opened()
        guard folder >= 0 else { return DirectoryEntry.at(path + "/" + name) }
        var info = stat()
        let found = fstatat(folder, name, &info, AT_SYMLINK_NOFOLLOW) == 0 ? DirectoryEntry(name: name, info: info) : nil
        memo?.keep(name, found)
        return found
    }

    /// Reads the file `name` in this folder as `AtomicFile.read` reads `path/name` (a regular
    /// file only, never through a link, at most `limit` bytes; the same errors), opened by name
    /// in the open folder: a sync reads a receipt or log of every peer, each a dozen names deep.
    public func read(_ name: String, limit: Int) throws(FileError) -> [UInt8] {
        let folder = opened()
        let whole = path + "/" + name
        guard folder >= 0 else { return try AtomicFile.read(whole, limit: limit) }
        var info = stat()
        guard fstatat(folder, name, &info, AT_SYMLINK_NOFOLLOW) == 0 else { throw FileError(path: whole, operation: "open", errno: errno) }
        if let kind = FileKind.notRegular(info.st_mode) { throw FileError(path: whole, operation: "read", message: "\(kind), not a regular file") }
        let descriptor = openat(folder, name, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY | O_NOFOLLOW)
        guard descriptor >= 0 else {
            let code = errno
            if code == ELOOP { throw FileError(path: whole, operation: "read", message: "a symbolic link, not a regular file") }
            throw FileError(path: whole, operation: "open", errno: code)
        }
        defer { close(descriptor) }
        return try AtomicFile.readAll(descriptor, path: whole, limit: limit)
    }

    /// The folder's descriptor, opened at the first question (-1 when it could not be).
    private func opened() -> Int32 {
        handle.withLock { handle in
            if !handle.tried {
                handle.tried = true
                if Self.reserve() {
                    var descriptor = Glibc.open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
                    var info = stat()
                    if descriptor >= 0, let identity, fstat(descriptor, &info) != 0 || UInt64(info.st_dev) != identity.device || UInt64(info.st_ino) != identity.inode {
                        close(descriptor)
                        descriptor = -1
                    }
                    if descriptor < 0 { Self.openCount.withLock { $0 -= 1 } }
                    handle.descriptor = descriptor
                }
            }
            return handle.descriptor
        }
    }
}
