import Foundation
import Testing
import UbiquityBase
@testable import UbiquitySync

/// The archive a bug report travels in comes from anywhere: unpacking it writes only below the
/// folder it is unpacked into.
@Suite("Folder archive")
struct FolderArchiveTests {
    @Test func aFolderComesBackAsItWas() throws {
        let root = NSTemporaryDirectory() + "folder-archive-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: root) }
        try AtomicFile.makeDirectory(root + "/in/a/b")
        try AtomicFile.write(Array("one".utf8), to: root + "/in/a/b/one.txt")
        try AtomicFile.write([], to: root + "/in/empty")
        #expect(try FolderArchive.write(folder: root + "/in", to: root + "/x.zip") == ["a/b/one.txt", "empty"])
        try FolderArchive.extract(root + "/x.zip", into: root + "/out")
        #expect(FolderArchive.regularFiles(below: root + "/out") == ["a/b/one.txt", "empty"])
        #expect(try AtomicFile.read(root + "/out/a/b/one.txt", limit: 16) == Array("one".utf8))
    }

    /// A bundle's model versions and how long a log has waited are judged by file times: they
    /// come back to the nanosecond, each file its own, and the times' entry is not unpacked.
    @Test func everyFileKeepsItsModificationTime() throws {
        let root = NSTemporaryDirectory() + "folder-archive-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: root) }
        try AtomicFile.makeDirectory(root + "/in/v")
        let times = ["v/Model 2.xcdatamodel": FileTime(seconds: 1_380_000_000, nanoseconds: 123_456_789),
                     "v/Model.xcdatamodel": FileTime(seconds: 1_390_000_001, nanoseconds: 1),
                     "log.cdt": FileTime(seconds: 946_684_800, nanoseconds: 0)]
        for (name, time) in times {
            try AtomicFile.write(Array(name.utf8), to: root + "/in/" + name)
            try time.set(on: root + "/in/" + name)
        }
        try FolderArchive.write(folder: root + "/in", to: root + "/x.zip")
        try FolderArchive.extract(root + "/x.zip", into: root + "/out")
        #expect(FolderArchive.regularFiles(below: root + "/out") == times.keys.sorted())
        for (name, time) in times {
            #expect(FileTime.modification(of: root + "/out/" + name) == time, "\(name)")
        }
    }

    @Test func anEntryThatLeavesTheFolderIsRefused() throws {
        let root = NSTemporaryDirectory() + "folder-archive-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: root) }
        try AtomicFile.makeDirectory(root + "/out")
        for name in ["../escaped.txt", "/tmp/absolute-\(UUID().uuidString).txt", "device/../../escaped.txt"] {
            var zip = try ZipWriter(path: root + "/hostile.zip", level: BlockDeflater.defaultLevel)
            try zip.add(name: name, bytes: Array("x".utf8))
            try zip.finish()
            #expect(throws: FolderArchiveError.unsafeEntry(root + "/hostile.zip", name)) {
                try FolderArchive.extract(root + "/hostile.zip", into: root + "/out")
            }
            #expect(!FileManager.default.fileExists(atPath: root + "/escaped.txt") && !FileManager.default.fileExists(atPath: name))
        }
    }
}
