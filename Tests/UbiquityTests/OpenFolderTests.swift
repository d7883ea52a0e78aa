import Foundation
import Testing
import UbiquityBase
#if canImport(Glibc)
import Glibc
#endif

/// `OpenFolder` answers for a file by name what `DirectoryEntry.at` answers by path.
@Suite("Open folders")
struct OpenFolderTests {
    let root = NSTemporaryDirectory() + "ubiquity-open-folder-" + UUID().uuidString

    @Test func answersAsAPathDoesForEveryKindOfEntry() throws {
        defer { try? FileManager.default.removeItem(atPath: root) }
        try AtomicFile.makeDirectory(root + "/logs")
        try AtomicFile.write(Array("log".utf8), to: root + "/logs/a.cdt")
        #expect(mkfifo(root + "/logs/fifo.cdt", 0o600) == 0)
        #expect(symlink("/etc/passwd", root + "/logs/link.cdt") == 0)
        try AtomicFile.makeDirectory(root + "/logs/folder.cdt")
        let folder = OpenFolder(root + "/logs")
        for name in ["a.cdt", "fifo.cdt", "link.cdt", "folder.cdt", "missing.cdt"] {
            #expect(folder.entry(name) == DirectoryEntry.at(root + "/logs/" + name), "\(name)")
        }
        #expect(folder.entry("link.cdt")?.isSymbolicLink == true, "a link is not followed")
        // A listing with metadata asks its folder the same way.
        let names = ["a.cdt", "fifo.cdt", "folder.cdt", "link.cdt"]
        #expect(DirectoryEntry.list(root + "/logs") == names.compactMap { DirectoryEntry.at(root + "/logs/" + $0) })
        #expect(DirectoryEntry.list(root + "/missing").isEmpty)
        #expect(folder.entry("missing.cdt") == nil)
        // A file changed after the folder was opened is seen as it is now.
        try AtomicFile.write(Array("longer log".utf8), to: root + "/logs/a.cdt")
        #expect(folder.entry("a.cdt")?.size == 10)
        unlink(root + "/logs/a.cdt")
        #expect(folder.entry("a.cdt") == nil)
    }

    @Test func aFolderThatIsALinkIsAskedByPath() throws {
        defer { try? FileManager.default.removeItem(atPath: root) }
        try AtomicFile.makeDirectory(root + "/real")
        try AtomicFile.write(Array("log".utf8), to: root + "/real/a.cdt")
        #expect(symlink(root + "/real", root + "/linked") == 0)
        let folder = OpenFolder(root + "/linked")
        #expect(folder.entry("a.cdt") == DirectoryEntry.at(root + "/linked/a.cdt"))
        #expect(folder.entry("a.cdt")?.size == 3)
    }

    @Test func readsByNameAsAPathIsRead() throws {
        defer { try? FileManager.default.removeItem(atPath: root) }
        try AtomicFile.makeDirectory(root + "/logs")
        try AtomicFile.write(Array("log".utf8), to: root + "/logs/a.cdt")
        try AtomicFile.write(Array(repeating: 7, count: 64), to: root + "/logs/big.cdt")
        #expect(mkfifo(root + "/logs/fifo.cdt", 0o600) == 0)
        #expect(symlink(root + "/logs/a.cdt", root + "/logs/link.cdt") == 0)
        try AtomicFile.makeDirectory(root + "/logs/folder.cdt")
        let folder = OpenFolder(root + "/logs")
        func outcome(_ read: () throws(FileError) -> [UInt8]) -> String {
            do { return "bytes \(try read())" } catch { return "\(error.path) \(error.operation): \(error.message)" }
        }
        for name in ["a.cdt", "big.cdt", "fifo.cdt", "link.cdt", "folder.cdt", "missing.cdt"] {
            let byName = outcome { () throws(FileError) in try folder.read(name, limit: 16) }
            #expect(byName == outcome { () throws(FileError) in try AtomicFile.read(root + "/logs/" + name, limit: 16) }, "\(name)")
        }
        #expect(try folder.read("a.cdt", limit: 16) == Array("log".utf8))
        #expect(throws: FileError.self, "a FIFO is refused, never waited on") { try folder.read("fifo.cdt", limit: 16) }
        #expect(throws: FileError.self, "a link is not followed") { try folder.read("link.cdt", limit: 16) }
        #expect(throws: FileError.self, "past the limit") { try folder.read("big.cdt", limit: 16) }
    }

    @Test func aFolderIsOpenedOnlyWhenItIsTheOneItsListingSaw() throws {
        defer { try? FileManager.default.removeItem(atPath: root) }
        try AtomicFile.makeDirectory(root + "/listed")
        try AtomicFile.makeDirectory(root + "/other")
        try AtomicFile.write(Array("log".utf8), to: root + "/listed/a.cdt")
        func identity(_ path: String) -> (device: UInt64, inode: UInt64) {
            var info = stat()
            lstat(path, &info)
            return (UInt64(info.st_dev), UInt64(info.st_ino))
        }
        // Its own inode: opened, and it keeps answering for that folder after the name moves.
        let kept = OpenFolder(root + "/listed", identity: identity(root + "/listed"))
        #expect(kept.entry("a.cdt")?.size == 3)
        // Another folder's inode (the name now holds a folder the listing never saw): asked by path.
        let replaced = OpenFolder(root + "/listed", identity: identity(root + "/other"))
        #expect(replaced.entry("a.cdt")?.size == 3)
        #expect(rename(root + "/listed", root + "/moved") == 0)
        #expect(kept.entry("a.cdt")?.size == 3, "the open folder follows its inode")
        #expect(replaced.entry("a.cdt") == nil, "by path, the name is gone")
        #expect(try kept.read("a.cdt", limit: 16) == Array("log".utf8))
        #expect(throws: FileError.self) { try replaced.read("a.cdt", limit: 16) }
    }

    @Test func manyFoldersStayWithinTheLimitAndStillAnswer() throws {
        defer { try? FileManager.default.removeItem(atPath: root) }
        let count = OpenFolder.limit + 10
        var folders: [OpenFolder] = []
        for index in 0..<count {
            try AtomicFile.makeDirectory(root + "/f\(index)")
            try AtomicFile.write(Array(repeating: 1, count: index), to: root + "/f\(index)/log")
            folders.append(OpenFolder(root + "/f\(index)"))
        }
        // Past the limit they answer by path: every answer is still right.
        for (index, folder) in folders.enumerated() { #expect(folder.entry("log")?.size == Int64(index)) }
    }
}
