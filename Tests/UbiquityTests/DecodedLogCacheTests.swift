import Foundation
import Testing
@testable import Ubiquity
@testable import UbiquityCore
@testable import UbiquitySync
import UbiquityTestSupport

/// A log that waits is decoded once while its file stays as it was (`DecodedLogCache`), and a
/// file changed in any way is read and judged again.
@Suite("Logs that wait are not read again while their files are unchanged")
struct DecodedLogCacheTests {
    func saveNote(_ peer: UbiquityPeer, _ key: String) throws {
        let context = peer.newContext()
        try context.insert("Note", key: key)["title"] = .string(key)
        try context.save()
    }

    /// The writer's logs, by number.
    func logPaths(_ peer: UbiquityPeer) throws -> [String] {
        let directory = try #require(peer.location).logDirectory(of: peer.peerID)
        return DirectoryEntry.list(directory).compactMap { entry in TransactionLog.transactionNumber(inFileName: entry.name).map { ($0, entry.name) } }
            .sorted { $0.0 < $1.0 }.map { directory + "/" + $0.1 }
    }

    /// Overwrites `path` in place with `bytes` of the same length, keeping its modification
    /// time and inode: only the change time tells (as a file-sync tool that keeps times leaves it).
    func overwriteInPlace(_ path: String, _ bytes: [UInt8]) throws {
        let before = try #require(DirectoryEntry.at(path))
        let descriptor = open(path, O_WRONLY)
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        #expect(bytes.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) } == bytes.count)
        let seconds = before.modificationTime.rounded(.down)
        var times = [timespec(tv_sec: Int(seconds), tv_nsec: Int((before.modificationTime - seconds) * 1e9))]
        times.append(times[0])
        #expect(futimens(descriptor, &times) == 0)
    }

    /// Waits until a file changed now counts as settled.
    func letSettle() { usleep(UInt32((DirectoryEntry.settlingTime + 0.05) * 1e6)) }

    @Test func aWaitingLogIsReadOnceUntilItsFileChangesOrItApplies() throws {
        let cloud = try TestCloud()
        let writer = try cloud.peer("writer"), reader = try cloud.peer("reader")
        for index in 1...3 { try saveNote(writer, "w\(index)") }
        let paths = try logPaths(writer)
        try #require(paths.count == 3)
        // The first log has not arrived: the second and third wait for it.
        let aside = cloud.root + "/first-log-aside"
        #expect(rename(paths[0], aside) == 0)
        let waiting = try reader.importAvailable()
        #expect(waiting.applied.isEmpty && waiting.waiting == 2)
        let kept = try #require(reader.location).caches.decodedLogs
        #expect(kept.holds(paths[1]) && kept.holds(paths[2]))

        // Once the files have settled, one more look knows them by their signatures (they
        // arrived just before the first import: it could only keep their bytes).
        letSettle()
        _ = try reader.importAvailable()
        let unchanged = ReadCounter()
        let again = try ReadCounter.$current.withValue(unchanged) { try reader.importAvailable() }
        #expect(again.applied.isEmpty && again.waiting == 2 && again.missingPredecessors.first?.number == 1)
        #expect(!unchanged.reads.contains(paths[1]) && !unchanged.reads.contains(paths[2]), "\(unchanged.reads)")

        // The third log damaged in place, its size and time kept: read again and set aside,
        // never applied from what it held before.
        let third = try AtomicFile.read(paths[2], limit: 1 << 20)
        try overwriteInPlace(paths[2], [UInt8](repeating: 0, count: third.count))
        let changed = ReadCounter()
        let damaged = try ReadCounter.$current.withValue(changed) { try reader.importAvailable() }
        #expect(changed.reads.contains(paths[2]) && !changed.reads.contains(paths[1]), "\(changed.reads)")
        #expect(damaged.quarantined.map(\.path).contains { paths[2].hasSuffix($0) }, "\(damaged.quarantined)")

        // The first arrives: the second applies and leaves the cache; the third waits, quarantined.
        #expect(rename(aside, paths[0]) == 0)
        let arrived = try reader.importAvailable()
        #expect(arrived.applied.map(\.number) == [1, 2], "\(arrived.applied)")
        #expect(!kept.holds(paths[1]))
        #expect(try reader.store.count(FetchRequest(entity: "Note")) == 2)
    }

    /// Two peers of one process (an app with two stores, a test, a scenario's devices) keep
    /// their own: what one decoded is not taken for the other, and goes with the peer.
    @Test func eachPeerKeepsItsOwnDecodedLogs() throws {
        let cloud = try TestCloud()
        let writer = try cloud.peer("writer"), reader = try cloud.peer("reader"), other = try cloud.peer("other")
        for index in 1...2 { try saveNote(writer, "w\(index)") }
        let paths = try logPaths(writer)
        #expect(rename(paths[0], cloud.root + "/first-log-aside") == 0)
        let waiting = try reader.importAvailable()
        #expect(waiting.waiting == 1)
        #expect(try #require(reader.location).caches.decodedLogs.holds(paths[1]))
        #expect(try #require(other.location).caches.decodedLogs.isEmpty, "the other peer decoded nothing")
        let read = ReadCounter()
        let theirs = try ReadCounter.$current.withValue(read) { try other.importAvailable() }
        #expect(theirs.waiting == 1)
        #expect(read.reads.contains(paths[1]), "the other peer reads the log itself: \(read.reads)")
    }

    /// A waiting log written again with the same bytes (a new file: another inode and change
    /// time) is read but decodes to what it did; one written again with other bytes of the
    /// same length is judged by what it holds now.
    @Test func aLogWrittenAgainIsJudgedByItsBytes() throws {
        let cloud = try TestCloud()
        let writer = try cloud.peer("writer"), reader = try cloud.peer("reader")
        for index in 1...3 { try saveNote(writer, "w\(index)") }
        let paths = try logPaths(writer)
        let aside = cloud.root + "/first-log-aside"
        #expect(rename(paths[0], aside) == 0)
        _ = try reader.importAvailable()
        #expect(try #require(reader.location).caches.decodedLogs.holds(paths[1]))

        let second = try AtomicFile.read(paths[1], limit: 1 << 20)
        try AtomicFile.write(second, to: paths[1])
        let rewritten = ReadCounter()
        let same = try ReadCounter.$current.withValue(rewritten) { try reader.importAvailable() }
        #expect(rewritten.reads.contains(paths[1]) && same.waiting == 2 && same.quarantined.isEmpty)

        var other = second
        other[other.count / 2] ^= 0x01
        try AtomicFile.write(other, to: paths[1])
        let flipped = try reader.importAvailable()
        #expect(flipped.quarantined.map(\.path).contains { paths[1].hasSuffix($0) }, "\(flipped.quarantined)")
    }
}
