import Foundation
import Synchronization
import Testing
@testable import Ubiquity
#if canImport(Glibc)
import Glibc
#endif

/// A peer's log folder listed by a sync is kept while the folder does not change
/// (`LogFolderListings`): whatever happens to the folder, fast or after it settled, a listing
/// gives what listing it afresh gives.
@Suite("Kept log folder listings")
struct LogFolderListingTests {
    let cloud = NSTemporaryDirectory() + "ubiquity-listings-" + UUID().uuidString

    @Test(arguments: SeededGenerator.testSeeds([1, 2]))
    func aKeptListingIsWhatAFreshOneGives(seed: UInt64) throws {
        defer { try? FileManager.default.removeItem(atPath: cloud) }
        let location = ContainerLocation(cloud: cloud, identityToken: "token", containerIdentifier: "iCloud.listings", contentURL: "CoreData",
                                         contentName: "Notes", modelHash: "hash")
        let folder = location.logDirectory(of: "alice~device")
        try AtomicFile.makeDirectory(folder)
        var random = SeededGenerator(seed: seed)
        let names = (1...6).map { TransactionLog.fileName(number: Int64($0)) } + [ContainerLocation.receiptName, "x.nosync", "other"]
        var kept = 0
        for step in 0..<60 {
            let name = names.randomElement(using: &random)!, path = folder + "/" + name
            switch Int.random(in: 0..<6, using: &random) {
            case 0, 1: try? AtomicFile.write(Array("\(step)".utf8), to: path)
            case 2: unlink(path)
            case 3: // a new name and its removal within one clock tick leave the folder's size as it was
                try? AtomicFile.write([1], to: path + ".1.cdt")
                unlink(path + ".1.cdt")
            case 4: // a file a listing kept is written in place: the folder's names stay as they were
                let descriptor = open(path, O_WRONLY | O_APPEND)
                if descriptor >= 0 { _ = write(descriptor, "\(step)", 1); close(descriptor) }
            default: // a file becomes a folder of the same name, or the reverse
                if rmdir(path) != 0 { unlink(path); mkdir(path, 0o755) }
            }
            if step % 7 == 6 { usleep(150_000) } // let the folder settle, so its listing is kept
            let fresh = ContainerEntry.listed(folder, as: .logs, of: location)
            let listed = ContainerEntry.list(folder, as: .logs, of: location)
            #expect(listed == fresh, "seed \(seed), step \(step)")
            // Each file's metadata is what the file system says now, whether kept or not.
            for entry in listed { #expect(entry.file == DirectoryEntry.at(entry.path), "seed \(seed), step \(step): \(entry.name)") }
            if LogFolderListings.isKept(folder) {
                kept += 1
                #expect(ContainerEntry.list(folder, as: .logs, of: location) == fresh, "seed \(seed), step \(step), kept")
            }
        }
        #expect(kept > 0, "some listings were kept")
        // A folder out of the container (a link on the way) lists nothing, kept or not.
        #expect(symlink(folder, location.contentDirectory(of: "alice~device") + "/link") == 0)
        #expect(ContainerEntry.list(location.contentDirectory(of: "alice~device") + "/link", as: .logs, of: location).isEmpty)
    }

    /// A kept listing is used for `maximumAge` at most: on a file system with coarse times, or
    /// a share stamped by another machine's clock, a name added in the kept look's tick leaves
    /// the folder's signature as it was, and only listing again finds it.
    @Test func aKeptListingExpires() throws {
        defer { try? FileManager.default.removeItem(atPath: cloud) }
        let location = ContainerLocation(cloud: cloud, identityToken: "token", containerIdentifier: "iCloud.listings", contentURL: "CoreData",
                                         contentName: "Notes", modelHash: "hash")
        let folder = location.logDirectory(of: "bob~device")
        try AtomicFile.makeDirectory(folder)
        try AtomicFile.write([1], to: folder + "/" + TransactionLog.fileName(number: 1))
        usleep(150_000) // settled, so the listing is kept
        _ = ContainerEntry.list(folder, as: .logs, of: location)
        let listedAt = try #require(LogFolderListings.keptAt(folder))
        #expect(LogFolderListings.isUsable(folder, at: listedAt + LogFolderListings.maximumAge / 2))
        #expect(!LogFolderListings.isUsable(folder, at: listedAt + LogFolderListings.maximumAge))
        // Past its age the folder is listed again and the listing kept anew, from that look.
        _ = LogFolderListings.list(folder, of: location, now: listedAt + LogFolderListings.maximumAge + 0.5)
        #expect(LogFolderListings.keptAt(folder) == listedAt + LogFolderListings.maximumAge + 0.5)
    }

    /// A folder that changed a moment ago is kept once it is watched (inotify), and whatever
    /// comes or goes in it afterwards drops the listing at once, before its signature is even
    /// compared: the next listing is the fresh one.
    @Test func aWatchedFolderIsKeptUntilANameComesOrGoes() throws {
        defer { try? FileManager.default.removeItem(atPath: cloud) }
        let location = ContainerLocation(cloud: cloud, identityToken: "token", containerIdentifier: "iCloud.listings", contentURL: "CoreData",
                                         contentName: "Notes", modelHash: "hash")
        let folder = location.logDirectory(of: "carol~device")
        try AtomicFile.makeDirectory(folder)
        let logs = (1...4).map { folder + "/" + TransactionLog.fileName(number: Int64($0)) }
        try AtomicFile.write([1], to: logs[0])
        let first = ContainerEntry.list(folder, as: .logs, of: location) // unsettled: kept only under the watch
        try #require(LogFolderListings.isWatched(folder), "inotify watches log folders on Linux")
        #expect(LogFolderListings.isKept(folder))
        #expect(ContainerEntry.list(folder, as: .logs, of: location) == first)
        let changes: [(String, () throws -> Void)] = [
            ("a new log", { try AtomicFile.write([2], to: logs[1]) }),
            ("a log removed", { #expect(unlink(logs[0]) == 0) }),
            ("a name renamed in", { #expect(rename(folder + "/../x.tmp", logs[2]) == 0) }),
            ("a folder made", { #expect(mkdir(logs[3], 0o755) == 0) }),
        ]
        try AtomicFile.write([3], to: folder + "/../x.tmp")
        for (change, make) in changes {
            _ = ContainerEntry.list(folder, as: .logs, of: location)
            #expect(LogFolderListings.isKept(folder), "before \(change)")
            try make()
            #expect(!LogFolderListings.isKept(folder), "\(change) drops the listing")
            let fresh = ContainerEntry.listed(folder, as: .logs, of: location)
            #expect(ContainerEntry.list(folder, as: .logs, of: location) == fresh, "\(change)")
        }
        #expect(ContainerEntry.list(folder, as: .logs, of: location).map(\.logNumber) == [2, 3, 4])
        // The folder removed: its watch goes, and a folder made at its place is watched anew.
        try FileManager.default.removeItem(atPath: folder)
        #expect(!LogFolderListings.isKept(folder))
        #expect(!LogFolderListings.isWatched(folder))
        try AtomicFile.makeDirectory(folder)
        #expect(ContainerEntry.list(folder, as: .logs, of: location).isEmpty)
        #expect(LogFolderListings.isWatched(folder))
    }
    /// Events for other folders do not cost a watched folder its listing: a sync lists one peer's
    /// folder while other peers' daemons deliver into theirs (and, in this process, other tests
    /// write into theirs). Before, any event taken between the watch and the keep dropped it.
    @Test func otherFoldersEventsLeaveAListingKept() throws {
        defer { try? FileManager.default.removeItem(atPath: cloud) }
        let location = ContainerLocation(cloud: cloud, identityToken: "token", containerIdentifier: "iCloud.listings", contentURL: "CoreData",
                                         contentName: "Notes", modelHash: "hash")
        let folder = location.logDirectory(of: "erin~device"), busy = location.logDirectory(of: "frank~device")
        try AtomicFile.makeDirectory(folder)
        try AtomicFile.makeDirectory(busy)
        _ = ContainerEntry.list(busy, as: .logs, of: location)
        try #require(LogFolderListings.isWatched(busy), "inotify watches log folders on Linux")
        final class Stop: Sendable { let flag = Atomic<Bool>(false) }
        let stop = Stop()
        let writer = Thread {
            var number: Int64 = 0
            while !stop.flag.load(ordering: .relaxed) {
                number += 1
                let path = busy + "/" + TransactionLog.fileName(number: number)
                try? AtomicFile.write([1], to: path)
                unlink(path)
                _ = ContainerEntry.list(busy, as: .logs, of: location) // watched again if it was dropped
            }
        }
        writer.start()
        defer { stop.flag.store(true, ordering: .relaxed) }
        for number in 1...40 {
            try AtomicFile.write([1], to: folder + "/" + TransactionLog.fileName(number: Int64(number)))
            let listed = ContainerEntry.list(folder, as: .logs, of: location) // unsettled: kept only under the watch
            #expect(listed.count == number)
            #expect(LogFolderListings.isKept(folder), "log \(number)")
        }
    }
    /// A listing kept under a watch keeps its files' metadata too, and any change to a file
    /// (written in place, truncated, its mode or times set, replaced, removed, made) is seen by
    /// the next question, as a fresh `lstat` sees it.
    @Test func keptMetadataFollowsEveryChangeOfAFile() throws {
        defer { try? FileManager.default.removeItem(atPath: cloud) }
        let location = ContainerLocation(cloud: cloud, identityToken: "token", containerIdentifier: "iCloud.listings", contentURL: "CoreData",
                                         contentName: "Notes", modelHash: "hash")
        let folder = location.logDirectory(of: "gina~device")
        try AtomicFile.makeDirectory(folder)
        let name = TransactionLog.fileName(number: 1), path = folder + "/" + name, absent = TransactionLog.fileName(number: 2)
        try AtomicFile.write([1, 2, 3, 4], to: path)
        try AtomicFile.write([0], to: folder + "/" + TransactionLog.fileName(number: 3)) // never changes: the listing is never empty
        // (what, whether the file's metadata must differ after it: a write in place may fall in the clock tick of the last one)
        let changes: [(String, Bool, () throws -> Void)] = [
            ("written in place", false, {
                let descriptor = open(path, O_WRONLY)
                #expect(pwrite(descriptor, [9], 1, 0) == 1)
                close(descriptor)
            }),
            ("truncated", true, { #expect(truncate(path, 2) == 0) }),
            ("its mode set", true, { #expect(chmod(path, 0o600) == 0) }),
            ("its times set", true, { try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSince1970: 1_000)], ofItemAtPath: path) }),
            ("replaced", true, { try AtomicFile.write([5, 6], to: path) }),
            ("removed", true, { #expect(unlink(path) == 0) }),
            ("made again", true, { try AtomicFile.write([7], to: path) }),
        ]
        for (change, differs, make) in changes {
            let listed = ContainerEntry.list(folder, as: .logs, of: location)
            let opened = try #require(listed.first?.folder)
            let memo = try #require(opened.memo, "a watched folder's listing keeps its files' metadata")
            let file = ContainerEntry(name: name, directory: folder, type: .regular, kind: .log(1), folder: opened)
            let other = ContainerEntry(name: absent, directory: folder, type: .regular, kind: .log(2), folder: opened)
            let before = file.file
            #expect(file.file == before && other.file == nil && other.file == nil, "before \(change)")
            #expect(memo.hits >= 2, "asked again before \(change): answered from the memo")
            try make()
            #expect(file.file == DirectoryEntry.at(path), "\(change)")
            if differs { #expect(file.file != before, "\(change) changes what is seen") }
            #expect(!memo.isValid, "\(change) ends the memo")
            #expect(other.file == nil)
        }
    }
    /// A folder above a watched log folder moved away, and the log folder made again at its
    /// place: the watches below the moved folder went with it, so the new log folder is watched
    /// anew, and a log written into it later drops its listing (a watch left on the folder
    /// that moved would tell nothing of the new one, and its listing would be trusted).
    @Test func aLogFolderMadeWhereAWatchedOneMovedAwayIsWatchedAnew() throws {
        defer { try? FileManager.default.removeItem(atPath: cloud) }
        let location = ContainerLocation(cloud: cloud, identityToken: "token", containerIdentifier: "iCloud.listings", contentURL: "CoreData",
                                         contentName: "Notes", modelHash: "hash")
        let peer = "ines~device", folder = location.logDirectory(of: peer), peerFolder = location.peerDirectory(of: peer)
        try AtomicFile.makeDirectory(folder)
        try AtomicFile.write([1], to: folder + "/" + TransactionLog.fileName(number: 1))
        _ = ContainerEntry.list(folder, as: .logs, of: location)
        try #require(LogFolderListings.isWatched(folder), "inotify watches log folders on Linux")
        #expect(rename(peerFolder, peerFolder + ".old") == 0)
        try AtomicFile.makeDirectory(folder)
        #expect(ContainerEntry.list(folder, as: .logs, of: location).isEmpty)
        #expect(ContainerEntry.list(folder, as: .logs, of: location).isEmpty)
        try AtomicFile.write([2], to: folder + "/" + TransactionLog.fileName(number: 2))
        #expect(ContainerEntry.list(folder, as: .logs, of: location).map(\.logNumber) == [2])
    }

    /// A listing made under watches of its folder and every folder above it is used with no
    /// look at the folder; any folder on the way moved away, replaced by another or by a link
    /// drops it at once: the next listing is the fresh one (nothing, through a link).
    @Test func aTrustedListingGoesWhenAFolderAboveIsReplaced() throws {
        defer { try? FileManager.default.removeItem(atPath: cloud) }
        let location = ContainerLocation(cloud: cloud, identityToken: "token", containerIdentifier: "iCloud.listings", contentURL: "CoreData",
                                         contentName: "Notes", modelHash: "hash")
        let peer = "hana~device", folder = location.logDirectory(of: peer)
        let above = try #require(LogFolderListings.folders(above: folder, below: location.ubiquityRoot))
        #expect(above == [location.ubiquityRoot, location.ubiquityRoot + "/" + peer, location.contentDirectory(of: peer)])
        #expect(LogFolderListings.folders(above: "/elsewhere/x", below: location.ubiquityRoot) == nil)
        // Each way a folder above can be swapped, with what the folder lists afterwards.
        let swaps: [(String, String, (String) throws -> Void)] = [
            ("the peer folder moved away and made again", location.ubiquityRoot + "/" + peer, { path in
                #expect(rename(path, path + ".old") == 0)
                try AtomicFile.makeDirectory(folder)
                try AtomicFile.write([2], to: folder + "/" + TransactionLog.fileName(number: 2))
            }),
            ("the content folder replaced by a link to a copy", location.contentDirectory(of: peer), { path in
                #expect(rename(path, self.cloud + "/outside") == 0)
                #expect(symlink(self.cloud + "/outside", path) == 0)
            }),
            ("the root moved away and made again", location.ubiquityRoot, { path in
                #expect(rename(path, path + ".old") == 0)
                try AtomicFile.makeDirectory(folder)
            }),
        ]
        for (swap, path, make) in swaps {
            try? FileManager.default.removeItem(atPath: location.ubiquityRoot)
            try? FileManager.default.removeItem(atPath: location.ubiquityRoot + ".old")
            try? FileManager.default.removeItem(atPath: cloud + "/outside")
            try AtomicFile.makeDirectory(folder)
            try AtomicFile.write([1], to: folder + "/" + TransactionLog.fileName(number: 1))
            _ = ContainerEntry.list(folder, as: .logs, of: location)
            _ = ContainerEntry.list(folder, as: .logs, of: location)
            #expect(LogFolderListings.isTrusted(folder), "before \(swap)")
            try make(path)
            #expect(!LogFolderListings.isTrusted(folder), "\(swap) drops the listing")
            let fresh = location.isConfined(folder) ? ContainerEntry.listed(folder, as: .logs, of: location) : []
            #expect(ContainerEntry.list(folder, as: .logs, of: location) == fresh, "\(swap)")
            #expect(fresh.map(\.logNumber) == (swap.contains("link") ? [] : swap.contains("peer") ? [2] : []), "\(swap)")
        }
        #expect(ContainerEntry.list(folder, as: .logs, of: location).isEmpty)
    }
}
