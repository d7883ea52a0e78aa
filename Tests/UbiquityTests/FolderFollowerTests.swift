import Foundation
import Testing
@testable import UbiquitySync
import UbiquityBase
import UbiquityCore
#if canImport(Glibc)
import Glibc
#endif

/// A reader of container folders is told what changed in them since it last looked
/// (`FolderFollower`), so it reads again only that. Whatever happens to a followed folder must
/// show at the next look: a name told for the named folder, a change for the others, or
/// "anything may have changed".
@Suite("Following container folders")
struct FolderFollowerTests {
    let cloud = NSTemporaryDirectory() + "ubiquity-follower-" + UUID().uuidString
    var location: ContainerLocation {
        ContainerLocation(cloud: cloud, identityToken: "token", containerIdentifier: "iCloud.follower", contentURL: "CoreData",
                          contentName: "Notes", modelHash: "hash")
    }

    func now() -> Double { Date().timeIntervalSince1970 }

    /// The names that came into the named folder are told, one by one (a temporary renamed
    /// into place shows both names); a name that went is not told; the first look, and any
    /// look told to read everything again, says they are unknown.
    @Test func namesThatComeIntoTheNamedFolderAreTold() throws {
        defer { try? FileManager.default.removeItem(atPath: cloud) }
        let own = location.logDirectory(of: "ann~device")
        try AtomicFile.makeDirectory(own)
        let follower = FolderFollower(root: location.ubiquityRoot, naming: own)
        #expect(follower.look(following: [], now: now()).arrivals == nil, "nothing known at the first look")
        try #require(follower.look(following: [], now: now()).arrivals == [], "inotify watches folders on Linux")
        let log = TransactionLog.fileName(number: 7)
        try AtomicFile.write([1], to: own + "/" + log)
        let told = try #require(follower.look(following: [], now: now()).arrivals)
        #expect(told.contains(log))
        #expect(told.allSatisfy { $0 == log || ContainerLocation.isTemporary($0) }, "\(told)")
        #expect(follower.look(following: [], now: now()).arrivals == [], "each name is told once")
        #expect(unlink(own + "/" + log) == 0)
        #expect(follower.look(following: [], now: now()).arrivals == [], "a name that went is not told")
        try AtomicFile.write([2], to: own + "/" + ContainerLocation.receiptName)
        #expect(follower.look(following: [], force: true, now: now()).arrivals == nil, "read everything again")
        #expect(follower.look(following: [], now: now()).arrivals == [])
    }

    /// A followed folder that changes is told, and nothing else is: not the named folder (its
    /// names are told instead), not a folder nobody follows.
    @Test func aChangedFolderIsToldAndOnlyIt() throws {
        defer { try? FileManager.default.removeItem(atPath: cloud) }
        let own = location.logDirectory(of: "ann~device"), other = location.logDirectory(of: "bob~device")
        let unfollowed = location.logDirectory(of: "cid~device")
        for folder in [own, other, unfollowed] { try AtomicFile.makeDirectory(folder) }
        let follower = FolderFollower(root: location.ubiquityRoot, naming: own)
        let leaves: Set = [location.ubiquityRoot, other]
        #expect(follower.look(following: leaves, now: now()).changed == nil)
        try #require(follower.look(following: leaves, now: now()).isQuiet, "inotify watches folders on Linux")
        try AtomicFile.write([1], to: own + "/" + TransactionLog.fileName(number: 1))
        try AtomicFile.write([1], to: unfollowed + "/" + TransactionLog.fileName(number: 1))
        #expect(follower.look(following: leaves, now: now()).isQuiet)
        try AtomicFile.write([1], to: other + "/" + ContainerLocation.receiptName)
        #expect(follower.look(following: leaves, now: now()).changed == [other])
        #expect(follower.look(following: leaves, now: now()).isQuiet, "told once")
        // A folder not followed before is unknown: read everything again.
        #expect(follower.look(following: leaves.union([unfollowed]), now: now()).changed == nil)
    }

    /// A missing folder is followed through the folder above it: when it comes, something
    /// changed. So is a file in a folder's place.
    @Test func aMissingFolderIsFollowedThroughItsParent() throws {
        defer { try? FileManager.default.removeItem(atPath: cloud) }
        let baselines = location.baselineDirectory
        try AtomicFile.makeDirectory(location.ubiquityRoot)
        let follower = FolderFollower(root: location.ubiquityRoot)
        _ = follower.look(following: [baselines], now: now())
        try #require(follower.look(following: [baselines], now: now()).isQuiet, "inotify watches folders on Linux")
        try AtomicFile.makeDirectory(baselines)
        #expect(follower.look(following: [baselines], now: now()).isQuiet == false, "the folder came")
        try AtomicFile.write([1], to: baselines + "/" + ContainerLocation.baselineName)
        #expect(follower.look(following: [baselines], now: now()).changed == [baselines])
    }

    /// The named folder moved away, or a folder above it replaced: its names are unknown, and
    /// from the next look on, those of the folder now at its place are told (a watch left on
    /// the folder that moved would tell that one's).
    @Test(arguments: ["the folder itself", "its peer folder", "the root"])
    func aReplacedFolderIsFollowedAnew(moved: String) throws {
        defer { try? FileManager.default.removeItem(atPath: cloud) }
        let own = location.logDirectory(of: "ann~device")
        let path = moved == "the folder itself" ? own : moved == "its peer folder" ? location.peerDirectory(of: "ann~device") : location.ubiquityRoot
        try AtomicFile.makeDirectory(own)
        let follower = FolderFollower(root: location.ubiquityRoot, naming: own)
        _ = follower.look(following: [location.ubiquityRoot], now: now())
        try #require(follower.look(following: [location.ubiquityRoot], now: now()).arrivals == [], "inotify watches folders on Linux")
        #expect(rename(path, cloud + "/moved") == 0)
        try AtomicFile.makeDirectory(own)
        let news = follower.look(following: [location.ubiquityRoot], now: now())
        #expect(news.arrivals == nil, "\(moved): what is in the new folder is unknown")
        // A log written into the folder that moved is not this folder's; one written here is.
        let old = TransactionLog.fileName(number: 2), log = TransactionLog.fileName(number: 3)
        try AtomicFile.write([1], to: cloud + "/moved" + own.dropFirst(path.count) + "/" + old)
        try AtomicFile.write([1], to: own + "/" + log)
        let told = try #require(follower.look(following: [location.ubiquityRoot], now: now()).arrivals, "\(moved)")
        #expect(told.contains(log) && !told.contains(old), "\(moved): \(told)")
    }

    /// Nothing is taken as unchanged for longer than a kept listing is used: a share's change
    /// made on another machine raises no event here.
    @Test func aLookPastTheMaximumAgeReadsEverythingAgain() throws {
        defer { try? FileManager.default.removeItem(atPath: cloud) }
        let own = location.logDirectory(of: "ann~device")
        try AtomicFile.makeDirectory(own)
        let follower = FolderFollower(root: location.ubiquityRoot, naming: own)
        let start = now()
        _ = follower.look(following: [location.ubiquityRoot], now: start)
        let quiet = follower.look(following: [location.ubiquityRoot], now: start + LogFolderListings.maximumAge / 2)
        try #require(quiet.arrivals == [] && quiet.isQuiet, "inotify watches folders on Linux")
        let late = follower.look(following: [location.ubiquityRoot], now: start + LogFolderListings.maximumAge)
        #expect(late.arrivals == nil && late.changed == nil)
    }

    /// More names than a follower keeps between two looks: they are unknown.
    @Test func tooManyNamesAreUnknown() throws {
        defer { try? FileManager.default.removeItem(atPath: cloud) }
        let own = location.logDirectory(of: "ann~device")
        try AtomicFile.makeDirectory(own)
        let follower = FolderFollower(root: location.ubiquityRoot, naming: own)
        _ = follower.look(following: [], now: now())
        try #require(follower.look(following: [], now: now()).arrivals == [], "inotify watches folders on Linux")
        for number in 0...LogFolderListings.Kept.arrivalsKept {
            close(open(own + "/" + TransactionLog.fileName(number: Int64(number)), O_CREAT | O_WRONLY, 0o644))
        }
        #expect(follower.look(following: [], now: now()).arrivals == nil)
    }
}
