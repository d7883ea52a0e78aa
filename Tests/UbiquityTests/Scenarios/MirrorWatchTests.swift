import Foundation
import Testing
import Ubiquity
@testable import UbiquitySimulation

/// The daemon's watched mirror (inotify) must hold what a walk of the mirror finds, and name
/// exactly the files a comparison of two walks finds changed: otherwise a daemon that watches
/// would queue other transfers than one that walks.
@Suite("Mirror watch")
struct MirrorWatchTests {
    let root = NSTemporaryDirectory() + "ubiquity-mirror-watch-" + UUID().uuidString

    /// Random file operations in a small tree of two accounts, checked against walks after each
    /// burst. Bursts are long enough to create a folder and fill it (and its subfolders)
    /// before the watch hears of it. A burst ends at a new hard link: a second name that came
    /// and went between two looks changed the file's change time unheard (the kernel tells
    /// only the folders of the names). Nothing makes one in a mirror: the library's one link,
    /// of the encryption record, is made from a new temporary name in the same folder.
    @Test(arguments: 1...16 as ClosedRange<UInt64>)
    func agreesWithAWalkAfterRandomOperations(seed: UInt64) throws {
        let mirror = root + "-\(seed)/Mobile Documents"
        defer { try? FileManager.default.removeItem(atPath: root + "-\(seed)") }
        try AtomicFile.makeDirectory(mirror)
        var random = SeededGenerator(seed: seed)
        let watch = MirrorWatch(root: mirror)
        let accounts = ["a", "b"]
        var walked = Dictionary(uniqueKeysWithValues: accounts.map { ($0, FileTree.list(mirror, under: $0).files) })
        #expect(watch.refresh())
        _ = watch.takeChanges()
        for burst in 0..<60 {
            let operations = Int.random(in: 1...12, using: &random)
            for _ in 0..<operations { if Self.operate(in: mirror, using: &random) { break } }
            #expect(watch.refresh(), "seed \(seed), burst \(burst)")
            let changes = watch.takeChanges()
            var expected: Set<String> = []
            for account in accounts {
                let now = FileTree.list(mirror, under: account).files
                let kept = watch.files(under: account)
                let wrong = Set(kept.keys).union(now.keys).filter { kept[$0] != now[$0] }.sorted()
                #expect(wrong.isEmpty, "seed \(seed), burst \(burst): the watch differs from a walk at \(wrong.map { "\($0) \(kept[$0].map { "\($0)" } ?? "-") \(now[$0].map { "\($0)" } ?? "-")" })")
                for (path, signature) in now where walked[account]?[path] != signature { expected.insert(path) }
                for path in walked[account]?.keys ?? [:].keys where now[path] == nil { expected.insert(path) }
                walked[account] = now
            }
            #expect(changes.filter { accounts.contains(String($0.prefix { $0 != "/" })) } == expected, "seed \(seed), burst \(burst)")
        }
    }

    /// A folder made and filled, several levels deep, between two looks.
    @Test func findsAFolderFilledBeforeItWasWatched() throws {
        let mirror = root + "/Mobile Documents"
        defer { try? FileManager.default.removeItem(atPath: root) }
        try AtomicFile.makeDirectory(mirror)
        let watch = MirrorWatch(root: mirror)
        #expect(watch.refresh())
        #expect(watch.files(under: "a").isEmpty)
        try AtomicFile.makeDirectory(mirror + "/a/c/peer/logs")
        try AtomicFile.write(Array("one".utf8), to: mirror + "/a/c/peer/logs/1.cdt")
        try AtomicFile.write(Array("two".utf8), to: mirror + "/a/c/receipt.cdt")
        try AtomicFile.write(Array("never".utf8), to: mirror + "/a/c/skip.nosync")
        #expect(watch.refresh())
        #expect(Set(watch.files(under: "a").keys) == ["a/c/peer/logs/1.cdt", "a/c/receipt.cdt"])
        #expect(watch.takeChanges() == ["a/c/peer/logs/1.cdt", "a/c/receipt.cdt"])
        #expect(watch.files(under: "a") == FileTree.list(mirror, under: "a").files)
        // Written into the new folder after its watch began: heard as any other change.
        try AtomicFile.write(Array("three".utf8), to: mirror + "/a/c/peer/logs/2.cdt")
        #expect(watch.refresh())
        #expect(watch.takeChanges() == ["a/c/peer/logs/2.cdt"])
        #expect(watch.files(under: "a") == FileTree.list(mirror, under: "a").files)
    }

    /// A mirror replaced as a whole (or the watch's events lost) is listed again.
    @Test func aMirrorReplacedIsListedAgain() throws {
        let mirror = root + "/Mobile Documents"
        defer { try? FileManager.default.removeItem(atPath: root) }
        try AtomicFile.makeDirectory(mirror + "/a/c")
        try AtomicFile.write(Array("one".utf8), to: mirror + "/a/c/1.cdt")
        let watch = MirrorWatch(root: mirror)
        #expect(watch.refresh())
        #expect(watch.takeChanges() == ["a/c/1.cdt"])
        try FileManager.default.moveItem(atPath: mirror, toPath: root + "/old")
        try AtomicFile.makeDirectory(mirror + "/a/c")
        try AtomicFile.write(Array("two".utf8), to: mirror + "/a/c/2.cdt")
        #expect(watch.refresh())
        #expect(watch.files(under: "a") == FileTree.list(mirror, under: "a").files)
        #expect(watch.takeChanges() == ["a/c/1.cdt", "a/c/2.cdt"])
    }

    // MARK: Operations

    static let folders = ["a", "a/c", "a/c/p1", "a/c/p1/logs", "a/c/p2", "a/d", "b", "b/c", "b/c/p1", "a/x.nosync", "a/c/p1/x.nosync"]
    static let names = ["1.cdt", "2.cdt", "receipt.plist", "baseline.zip", "skip.nosync"]

    /// One random change: write, append, touch, remove, rename or link a file; make, fill,
    /// remove or rename a folder; put a file where a folder was or the other way round.
    /// Returns whether it made a second name of a file.
    @discardableResult
    static func operate(in mirror: String, using random: inout SeededGenerator) -> Bool {
        let folder = mirror + "/" + folders.randomElement(using: &random)!
        let other = mirror + "/" + folders.randomElement(using: &random)!
        let file = folder + "/" + names.randomElement(using: &random)!
        let target = other + "/" + names.randomElement(using: &random)!
        switch Int.random(in: 0..<12, using: &random) {
        case 0, 1:
            try? AtomicFile.makeDirectory(folder)
            try? AtomicFile.write((0..<Int.random(in: 0..<40, using: &random)).map { UInt8($0) }, to: file)
        case 2:
            // In place, as an append: the same inode, a new size and times.
            if let handle = FileHandle(forWritingAtPath: file) { handle.seekToEndOfFile(); handle.write(Data([1, 2, 3])); handle.closeFile() }
        case 3:
            var times = [timespec(tv_sec: Int.random(in: 1_000_000...2_000_000, using: &random), tv_nsec: 0), timespec(tv_sec: 1_500_000, tv_nsec: 0)]
            _ = utimensat(AT_FDCWD, file, &times, AT_SYMLINK_NOFOLLOW)
        case 4:
            unlink(file)
        case 5:
            try? AtomicFile.makeDirectory(other)
            rename(file, target)
        case 6:
            // A second name changes the file's change time with no event in its own folder.
            // (Not in a `.nosync` folder: nothing watches there, and nothing links there.)
            guard !target.contains(".nosync/") else { return false }
            try? AtomicFile.makeDirectory(other)
            return link(file, target) == 0
        case 7:
            // A folder made and filled at once, subfolder included, before any look.
            let fresh = folder + "/new\(Int.random(in: 0..<3, using: &random))"
            try? AtomicFile.makeDirectory(fresh + "/deep")
            try? AtomicFile.write([1], to: fresh + "/1.cdt")
            try? AtomicFile.write([2], to: fresh + "/deep/2.cdt")
        case 8:
            try? FileManager.default.removeItem(atPath: folder)
        case 9:
            guard !other.hasPrefix(folder + "/"), other != folder else { return false }
            try? AtomicFile.makeDirectory((other as NSString).deletingLastPathComponent)
            rename(folder, other)
        case 10:
            // A file where a folder was, or a folder where a file was.
            if (try? FileManager.default.removeItem(atPath: folder)) != nil {
                try? AtomicFile.write([9], to: folder)
            } else {
                unlink(file)
                try? AtomicFile.makeDirectory(file)
                try? AtomicFile.write([8], to: file + "/inner.cdt")
            }
        default:
            symlink(folder, target)
        }
        return false
    }
}
