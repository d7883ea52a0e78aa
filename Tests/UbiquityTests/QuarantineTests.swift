import Foundation
import Testing
import UbiquityPlist
@testable import Ubiquity
@testable import UbiquityCore
import UbiquityTestSupport

@Suite("Bad files in the cloud are quarantined and never stop the import of the rest")
struct QuarantineTests {
    func logPaths(_ peer: UbiquityPeer) throws -> [String] {
        let directory = try #require(peer.location).logDirectory(of: peer.peerID)
        return DirectoryEntry.list(directory).filter { TransactionLog.transactionNumber(inFileName: $0.name) != nil }.map { directory + "/" + $0.name }
    }

    func saveNote(_ peer: UbiquityPeer, _ key: String) throws {
        let context = peer.newContext()
        try context.insert("Note", key: key)["title"] = .string(key)
        try context.save()
    }

    @Test func corruptTruncatedForeignAndHostileFilesAreSetAside() throws {
        let cloud = try TestCloud()
        let writer = try cloud.peer("writer"), healthy = try cloud.peer("healthy"), reader = try cloud.peer("reader")
        for index in 1...3 { try saveNote(writer, "w\(index)") }
        try saveNote(healthy, "h1")
        let location = try #require(writer.location)
        let paths = try logPaths(writer)
        #expect(paths.count == 3)

        // Log 2 of the writer: its title altered in place (still a plist; the checksum no longer matches).
        let original = try AtomicFile.read(paths[1], limit: 1 << 20)
        let title = try #require(original.indices.first { original[$0] == UInt8(ascii: "w") && original[$0 + 1] == UInt8(ascii: "2") })
        var bytes = original
        bytes[title] = UInt8(ascii: "x")
        try AtomicFile.write(bytes, to: paths[1])

        // A forger's folder: a valid log of the writer copied under another peer's name.
        let forger = "mallory~00000000-0000-0000-0000-000000000001"
        try AtomicFile.makeDirectory(location.logDirectory(of: forger))
        try AtomicFile.write(try AtomicFile.read(paths[0], limit: 1 << 20),
                             to: location.logDirectory(of: forger) + "/" + TransactionLog.fileName(number: 1))
        // A truncated log and pure garbage under a log's name, in a third peer's folder.
        let broken = "broken~00000000-0000-0000-0000-000000000002"
        try AtomicFile.makeDirectory(location.logDirectory(of: broken))
        try AtomicFile.write(Array(try AtomicFile.read(paths[0], limit: 1 << 20).prefix(60)),
                             to: location.logDirectory(of: broken) + "/" + TransactionLog.fileName(number: 1))
        try AtomicFile.write(Array("garbage that is not a plist".utf8),
                             to: location.logDirectory(of: broken) + "/" + TransactionLog.fileName(number: 2))
        // A log of a format from the future, correctly checksummed.
        let future = "future~00000000-0000-0000-0000-000000000003"
        var log = try TransactionLog(decoding: try AtomicFile.read(paths[0], limit: 1 << 20), model: cloud.model)
        log.peerID = future
        log.stamp = Stamp(wallMilliseconds: log.stamp.wallMilliseconds, counter: 0, peerID: future)
        log.knowledge = KnowledgeVector([future: 1])
        var fields = log.payload()
        fields["format"] = .integer(2)
        fields["checksum"] = .string(CanonicalEncoding.sha256Hex(of: .dictionary(fields)))
        try AtomicFile.makeDirectory(location.logDirectory(of: future))
        try AtomicFile.write(PlistSeam.encode(.dictionary(fields), format: .binary),
                             to: location.logDirectory(of: future) + "/" + TransactionLog.fileName(number: 1))
        // Hostile and foreign names: never imported, never a crash.
        let root = location.ubiquityRoot
        try AtomicFile.makeDirectory(root + "/..evil")
        try AtomicFile.makeDirectory(root + "/Bad Name With Spaces")
        try AtomicFile.makeDirectory(root + "/ünïcode~peer")
        let writerDirectory = location.logDirectory(of: writer.peerID)
        try AtomicFile.write([1, 2, 3], to: writerDirectory + "/" + (paths[2] as NSString).lastPathComponent + ".sync-conflict-20240101-000000-ABCDEFG")
        try AtomicFile.write([1, 2, 3], to: writerDirectory + "/.syncthing.0000000004-x.1.cdt.tmp")
        try AtomicFile.write([1, 2, 3], to: writerDirectory + "/line\nbreak.cdt")
        symlink("/etc/passwd", writerDirectory + "/" + TransactionLog.fileName(number: 9))

        let report = try reader.importAvailable()
        let reasons = Dictionary(report.quarantined.map { (($0.path as NSString).lastPathComponent + "@" + $0.path.prefix(6), $0.reason) }, uniquingKeysWith: { a, _ in a })
        #expect(report.quarantined.count == 5, "\(report.quarantined)")
        #expect(reasons.values.contains { $0.contains("checksum does not match") })
        #expect(reasons.values.contains { $0.contains("names author") && $0.contains("mallory") })
        #expect(reasons.values.contains { $0.contains("unknown log format 2") })
        #expect(reasons.values.filter { $0.contains("not a readable property list") }.count == 2)
        // Everything healthy still came in: the writer's first log and the other peer's log.
        #expect(report.applied.map(\.number).sorted() == [1, 1])
        #expect(try reader.store.count(FetchRequest(entity: "Note")) == 2)
        // The writer's third log waits for the quarantined second one, and the wait is reported.
        #expect(report.missingPredecessors.map(\.peerID) == [writer.peerID])
        #expect(report.missingPredecessors.first?.number == 2)
        #expect(report.ignored.contains("..evil") == false, "dot folders are the container's own, skipped silently")
        #expect(report.ignored.contains("Bad Name With Spaces"))
        #expect(report.ignored.contains("ünïcode~peer"))
        #expect(report.ignored.contains { $0.hasSuffix(".sync-conflict-20240101-000000-ABCDEFG") })
        #expect(report.ignored.contains { $0.hasSuffix(TransactionLog.fileName(number: 9).prefix(10) + "") } == false)

        // Quarantine is remembered: the next pass neither re-reports nor applies anything.
        let again = try reader.importAvailable()
        #expect(again.quarantined.isEmpty)
        #expect(again.applied.isEmpty)
        #expect(try reader.store.quarantined().count == 5)

        // The writer rewrites its own log 2 intact (as a file-sync tool would deliver it again): it imports.
        let committed = try writer.store.transactionHistory().first { $0.peerID == writer.peerID && $0.number == 2 }
        #expect(committed != nil, "the writer committed transaction 2")
        try AtomicFile.write(original + [], to: paths[1])
        let healedReport = try reader.importAvailable()
        #expect(healedReport.applied.map(\.number) == [2, 3])
        #expect(try reader.store.count(FetchRequest(entity: "Note")) == 4)
    }

    /// Writes `bytes` into the file at `path` in place (same inode, same size) and gives it back
    /// its modification time: only the kernel's change time tells it changed.
    func rewriteInPlace(_ path: String, _ bytes: [UInt8]) throws {
        let before = try #require(DirectoryEntry.at(path))
        let descriptor = open(path, O_WRONLY)
        #expect(descriptor >= 0)
        #expect(bytes.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) } == bytes.count)
        let seconds = before.modificationTime.rounded(.down)
        var times = [timespec(tv_sec: Int(seconds), tv_nsec: Int((before.modificationTime - seconds) * 1e9))]
        times.append(times[0])
        #expect(futimens(descriptor, &times) == 0)
        close(descriptor)
        let after = try #require(DirectoryEntry.at(path))
        #expect(after.size == before.size && after.modificationTime == before.modificationTime && after.inode == before.inode)
        #expect(after.signature != before.signature, "the change time tells")
    }

    /// A log damaged and then repaired in place, with its size and modification time unchanged
    /// (as a file-sync tool that keeps times would leave it), is tried again and imported; a
    /// known-bad file is not read again meanwhile.
    @Test func aLogRepairedInPlaceWithTheSameSizeAndTimeIsTriedAgain() throws {
        let cloud = try TestCloud()
        let writer = try cloud.peer("writer"), reader = try cloud.peer("reader")
        for index in 1...3 { try saveNote(writer, "w\(index)") }
        let second = try logPaths(writer)[1]
        let whole = try AtomicFile.read(second, limit: 1 << 20)
        try rewriteInPlace(second, [UInt8](repeating: 0, count: whole.count))

        let first = try reader.importAvailable()
        #expect(first.applied.map(\.number) == [1] && first.quarantined.count == 1)
        let counter = ReadCounter()
        let again = try ReadCounter.$current.withValue(counter) { try reader.importAvailable() }
        #expect(again.applied.isEmpty && again.waiting == 1 && again.missingPredecessors.first?.quarantineReason != nil)
        let writerReads = counter.reads.filter { $0.contains(writer.peerID) }
        #expect(writerReads.isEmpty, "neither the bad log nor the one waiting behind it is read again: \(writerReads)")

        try rewriteInPlace(second, whole)
        let healed = try reader.importAvailable()
        #expect(healed.applied.map(\.number) == [2, 3], "\(healed.applied)")
        #expect(try reader.store.quarantined().isEmpty)
    }

    /// A log a file-sync tool wrote unreadable (mode 000) and then fixed: the fix changes
    /// nothing but the mode, and the log is imported. (Root reads any mode: this part needs a
    /// user without that power.)
    @Test(.enabled(if: getuid() != 0, "root reads a file of any mode: run as another user to check this"))
    func aLogMadeReadableAgainIsImported() throws {
        let cloud = try TestCloud()
        let writer = try cloud.peer("writer"), reader = try cloud.peer("reader")
        for index in 1...2 { try saveNote(writer, "w\(index)") }
        let first = try logPaths(writer)[0]
        #expect(chmod(first, 0) == 0)
        let blocked = try reader.importAvailable()
        #expect(blocked.quarantined.first?.reason.contains("cannot be read") == true, "\(blocked.quarantined)")
        #expect(chmod(first, 0o644) == 0)
        #expect(try reader.importAvailable().applied.map(\.number) == [1, 2])
    }

    /// doctor reads bytes: a quarantined log whose modification time changed since (a copy of
    /// the container, a checkout) is still reported, and so is one no import has read yet.
    @Test func doctorReadsEveryLogWhateverItsTimes() throws {
        let cloud = try TestCloud()
        let writer = try cloud.peer("writer"), reader = try cloud.peer("reader")
        for index in 1...2 { try saveNote(writer, "w\(index)") }
        let paths = try logPaths(writer)
        try AtomicFile.write(Array("damaged".utf8), to: paths[0])
        #expect(try Doctor.examine(reader).contains { $0.kind == .unreadableFile && $0.message.contains((paths[0] as NSString).lastPathComponent) },
                "reported before any import read it")
        _ = try reader.sync()
        var times = [timespec(tv_sec: 1_000_000, tv_nsec: 0), timespec(tv_sec: 1_000_000, tv_nsec: 0)]
        #expect(utimensat(AT_FDCWD, paths[0], &times, 0) == 0)
        let findings = try Doctor.examine(reader)
        #expect(findings.contains { $0.kind == .unreadableFile && $0.message.contains((paths[0] as NSString).lastPathComponent) }, "\(findings.map(\.message))")
    }

    @Test func anUnwritableContainerKeepsLogsInTheOutboxUntilItHeals() throws {
        let cloud = try TestCloud()
        let writer = try cloud.peer("writer"), reader = try cloud.peer("reader")
        let location = try #require(writer.location)
        // Make the ubiquity root a file: every write into it fails, as on a full or read-only disk.
        try AtomicFile.makeDirectory((location.ubiquityRoot as NSString).deletingLastPathComponent)
        try AtomicFile.write(Array("not a folder".utf8), to: location.ubiquityRoot)
        try saveNote(writer, "offline1")
        try saveNote(writer, "offline2")
        let blocked = try writer.sync()
        #expect(blocked.outboxPending == 2)
        #expect(blocked.exportError?.description.contains("outbox keeps the logs") == true)
        #expect(try writer.store.count(FetchRequest(entity: "Note")) == 2, "the saves themselves are kept")

        try FileManager.default.removeItem(atPath: location.ubiquityRoot)
        let healed = try writer.sync()
        #expect(healed.exported == 2)
        #expect(healed.outboxPending == 0)
        _ = try reader.sync()
        #expect(try reader.dumpText() == writer.dumpText())
    }

    @Test func aSecondOwnerOfADeviceIsRefused() throws {
        let cloud = try TestCloud()
        let first = try cloud.peer("solo")
        #expect(throws: PeerError.device(.inUse(cloud.devicePath("solo"), owner: .thisProcess))) {
            _ = try cloud.peer("solo")
        }
        first.close()
        let second = try cloud.peer("solo")
        #expect(second.peerID == first.peerID)
    }
}
