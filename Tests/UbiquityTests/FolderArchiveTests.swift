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
