import Foundation
import Testing
@testable import Ubiquity
#if canImport(Glibc)
import Glibc
#endif

/// `ContainerLocation.isConfined` walks an ASCII path's bytes below the root: it answers as
/// `DirectoryEntry.isRealFolder` does (a real folder all the way down, no link, no `..`), for
/// folders, files, links, missing names, doubled and trailing slashes.
@Suite("Confinement")
struct ConfinementTests {
    let cloud = NSTemporaryDirectory() + "ubiquity-confined-" + UUID().uuidString

    @Test(arguments: SeededGenerator.testSeeds([1, 2, 3]))
    func theByteWalkAnswersAsTheFolderCheck(seed: UInt64) throws {
        defer { try? FileManager.default.removeItem(atPath: cloud) }
        let location = ContainerLocation(cloud: cloud, identityToken: "token", containerIdentifier: "iCloud.confined", contentURL: "CoreData",
                                         contentName: "Notes", modelHash: "hash")
        let root = location.ubiquityRoot
        try AtomicFile.makeDirectory(root + "/a/b/c")
        try AtomicFile.makeDirectory(root + "/a/d")
        try AtomicFile.makeDirectory(root + "/é/f")
        try AtomicFile.write(Array("x".utf8), to: root + "/a/file")
        #expect(symlink(root + "/a/b", root + "/a/link") == 0)
        #expect(symlink("/tmp", root + "/out") == 0)
        var random = SeededGenerator(seed: seed)
        let pieces = ["a", "b", "c", "d", "é", "f", "file", "link", "out", "missing", ".", "..", ""]
        var confined = 0
        for _ in 0..<400 {
            let path = root + "/" + (0..<Int.random(in: 1...4, using: &random)).map { _ in pieces.randomElement(using: &random)! }.joined(separator: "/")
            let expected = DirectoryEntry.isRealFolder(path, below: root)
            #expect(location.isConfined(path) == expected, "seed \(seed): \(path)")
            if expected { confined += 1 }
        }
        #expect(confined > 0, "some paths are real folders")
        #expect(location.isConfined(root + "/a/b/c") && !location.isConfined(root + "/a/link/c") && !location.isConfined(root + "/out"))
        #expect(location.isConfined(root) && !location.isConfined(cloud + "/elsewhere"))
    }
}
