import Foundation
import UbiquityBase

// Every folder a peer lists and every file it reads or writes below the ubiquity root goes
// through here. A folder is used only when it, and every folder between the root and it, is a
// real folder (`lstat`: a symbolic link is never followed), and a file is read only when it is a
// regular file (`AtomicFile.openRegularFile`). So nothing a file-sync tool or another peer puts
// into the cloud leads a peer out of it, or makes it wait on a FIFO. Reads open sealed files and
// writes seal them when the content is encrypted (`sealing`): no other code sees a sealed byte.
extension ContainerLocation {
    /// Whether `directory` (below the ubiquity root) is a real folder all the way down from the root.
    ///
    /// Every listing of a sync asks this, so the usual case (an ASCII path that spells the root
    /// byte for byte, where bytes and characters split alike) walks the path's bytes in one
    /// buffer; it makes the same `lstat` calls, in the same order, with the same answer as
    /// `DirectoryEntry.isRealFolder`, which takes any other case.
    package func isConfined(_ directory: String) -> Bool { confinement(of: directory).isConfined }

    /// `isConfined(directory)`, with the folder's own `lstat` when the byte walk made it (an
    /// ASCII path below the root): a listing keyed by the folder's signature needs no more.
    /// With `root` (the ubiquity root opened by the caller) each folder is asked of it by the
    /// part of its path below the root, not by the whole path: the kernel then walks one to
    /// three names instead of a dozen, and a sync checks every peer's folders.
    package func confinement(of directory: String, root opened: OpenedRoot? = nil) -> (isConfined: Bool, folder: stat?) {
        var path = directory, root = ubiquityRoot
        let descriptor = opened?.descriptor ?? -1
        let walked: Walk? = path.withUTF8 { path in root.withUTF8 { root in Self.walkConfined(path, below: root, descriptor: descriptor) } }
        switch walked {
        case let .confined(folder)?: return (true, folder)
        case .outside?: return (false, nil)
        case nil: return (DirectoryEntry.isRealFolder(directory, below: ubiquityRoot), nil)
        }
    }

    private enum Walk {
        /// Every folder is real; the last one's `lstat` (none for a path that ends in `/`-only components).
        case confined(stat?)
        case outside
    }

    /// `isConfined` on the bytes of an ASCII `path` that spells `root` and a `/`: `lstat` of
    /// each folder from the root down, every component ended in turn by a NUL in one buffer
    /// (asked of `descriptor`, the root opened, by the path below it, when it is one);
    /// `nil` for any other path.
    private static func walkConfined(_ path: UnsafeBufferPointer<UInt8>, below root: UnsafeBufferPointer<UInt8>, descriptor: Int32) -> Walk? {
        // Plain pointer loops: a debug build runs `enumerated()` or `contains(where:)` over a
        // buffer in generic code, a metadata lookup per byte, and every listing comes here.
        let slash = UInt8(ascii: "/"), dot = UInt8(ascii: "."), count = path.count
        guard count > root.count + 1, let bytes = path.baseAddress, bytes[root.count] == slash,
              root.isEmpty || memcmp(bytes, root.baseAddress!, root.count) == 0 else { return nil }
        var index = 0
        while index < count {
            if bytes[index] >= 0x80 || bytes[index] == 0 { return nil }
            index += 1
        }
        return withUnsafeTemporaryAllocation(of: CChar.self, capacity: count + 1) { buffer in
            let names = buffer.baseAddress!
            memcpy(names, bytes, count)
            names[count] = 0
            var start = root.count + 1, last: stat?
            // Below an opened root, each folder by its path relative to it (what follows `root/`;
            // a path that goes on with another `/` would be read from `/`: whole paths then).
            let (base, asked) = descriptor >= 0 && bytes[start] != slash ? (descriptor, names + start) : (AT_FDCWD, names)
            while start < count {
                var end = start
                while end < count && bytes[end] != slash { end += 1 }
                let length = end - start
                defer { start = end + 1 }
                if length == 0 { continue } // a doubled slash: no component (as `split` omits it)
                if bytes[start] == dot && (length == 1 || (length == 2 && bytes[start + 1] == dot)) { return .outside }
                let ending = names[end]
                names[end] = 0
                var info = stat()
                let found = fstatat(base, asked, &info, AT_SYMLINK_NOFOLLOW)
                names[end] = ending
                guard found == 0, (info.st_mode & S_IFMT) == S_IFDIR else { return .outside }
                last = info
            }
            return .confined(last)
        }
    }

    /// The ubiquity root, opened (a link the user chose as the root is followed) for the
    /// confinement checks of one pass over the container (`ContainerScan`); closed when the
    /// last holder lets go. A root that cannot be opened leaves the checks to whole paths.
    package final class OpenedRoot: Sendable {
        let descriptor: Int32

        package init(_ location: ContainerLocation) {
            descriptor = open(location.ubiquityRoot, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        }

        deinit { if descriptor >= 0 { close(descriptor) } }
    }

    /// The names in `directory`, sorted (with `regularFilesOnly`, of regular files only); none
    /// when it is not a real folder below the root.
    package func names(in directory: String, regularFilesOnly: Bool = false) -> [String] {
        isConfined(directory) ? DirectoryEntry.names(directory, regularFilesOnly: regularFilesOnly) : []
    }

    /// The entries of `directory`, sorted by name; none when it is not a real folder below the root.
    package func entries(in directory: String) -> [DirectoryEntry] {
        isConfined(directory) ? DirectoryEntry.list(directory) : []
    }

    /// Reads the regular file at `path` (below the root) whose folders are all real folders, and
    /// opens it when it is sealed (a file that fails authentication, or content whose key this
    /// device lacks, throws: `ContentSealing.isNoKey` tells the two apart).
    package func read(_ path: String, limit: Int) throws(FileError) -> [UInt8] {
        let directory = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
        guard isConfined(directory) else {
            throw FileError(path: path, operation: "read", message: "a folder on its way below \(ubiquityRoot) is a symbolic link or not a folder")
        }
        return try sealing.open(try AtomicFile.read(path, limit: SealedFile.sealedSize(ofAtMost: limit)), path: path)
    }

    /// Writes `bytes` atomically at `path` below the root, sealed when the content is encrypted;
    /// makes the missing folders. Throws, writing nothing, when the content is encrypted and this
    /// device holds no key, or a folder on the way is not a real folder.
    package func write(_ bytes: [UInt8], to path: String, modificationTime: Double? = nil) throws(FileError) {
        let directory = (path as NSString).deletingLastPathComponent
        let sealed = try sealing.seal(bytes, path: path)
        // Its folders all there and real (a peer rewrites its receipt at most syncs): nothing to check or make.
        if !isConfined(directory) {
            try checkWritable(directory)
            try AtomicFile.makeDirectory(directory)
        }
        try AtomicFile.write(sealed, to: path, modificationTime: modificationTime)
    }

    /// The key files written now are sealed under: `nil` when the content is not encrypted;
    /// throws when it is and this device holds no key (for writes that seal on their own, such
    /// as a baseline, sealed as it streams).
    package func sealingKey(forWriting path: String) throws(FileError) -> ContentKey? {
        switch sealing.state {
        case .plain: return nil
        case .sealed: if let key = sealing.contentKey { return key }
        case .locked: break
        }
        throw FileError(path: path, operation: "write", message: ContentSealing.noKeyMessage)
    }

    /// Throws unless every folder of `directory` below the root that exists is a real folder
    /// (the missing ones are made by the write): a peer never writes out of the cloud through a
    /// symbolic link, e.g. its own peer folder made a link to somewhere else.
    package func checkWritable(_ directory: String) throws(FileError) {
        guard directory.hasPrefix(ubiquityRoot + "/") else { return }
        var current = ubiquityRoot
        for component in directory.dropFirst(ubiquityRoot.count + 1).split(separator: "/") {
            current += "/" + component
            guard let entry = DirectoryEntry.at(current) else { return }
            guard entry.isDirectory else {
                throw FileError(path: current, operation: "write into",
                                message: "it is \(entry.kindIfNotRegular ?? "a file"), not a folder of the cloud; nothing is written through it (move it aside)")
            }
        }
    }
}
