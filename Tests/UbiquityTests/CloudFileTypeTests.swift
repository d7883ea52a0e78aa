import Foundation
import Testing
@testable import Ubiquity
#if canImport(Glibc)
import Glibc
import UbiquityTestSupport
#endif

/// Files in the cloud that are not what their names say — FIFOs, sockets, device nodes,
/// folders and symbolic links named like logs, receipts, baselines or the content epoch — never
/// make a command wait, never lead a peer out of the cloud, and never brick a device.
@Suite("Files that are not what their names say")
struct CloudFileTypeTests {
    /// Makes a FIFO, a socket or a device node at `path`; a socket is bound at a short path and
    /// renamed into place (a socket's path holds at most 108 bytes). The short path is in the
    /// temporary folder, which holds the test's cloud, so that the rename stays on one file
    /// system (from /tmp it failed with EXDEV when TMPDIR was on another).
    static func makeSpecial(_ kind: String, at path: String) throws {
        switch kind {
        case "fifo":
            guard mkfifo(path, 0o644) == 0 else { throw FileError(path: path, operation: "mkfifo", errno: errno) }
        case "socket":
            let folder = NSTemporaryDirectory().utf8.count < 80 ? NSTemporaryDirectory() : "/tmp/"
            let short = (folder.hasSuffix("/") ? folder : folder + "/") + "s-" + UUID().uuidString.prefix(8)
            let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
            defer { close(descriptor) }
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &address.sun_path) { raw in
                for (index, byte) in short.utf8.enumerated() { raw[index] = byte }
            }
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
            guard bound == 0, rename(short, path) == 0 else { throw FileError(path: path, operation: "bind", errno: errno) }
        case "device":
            // A character device like /dev/null; only root may make one.
            guard mknod(path, S_IFCHR | 0o644, dev_t((1 << 8) | 3)) == 0 else { throw FileError(path: path, operation: "mknod", errno: errno) }
        case "folder":
            try AtomicFile.makeDirectory(path)
        default:
            guard symlink("/etc/passwd", path) == 0 else { throw FileError(path: path, operation: "symlink", errno: errno) }
        }
    }

    static var kinds: [String] { ["fifo", "socket", "folder", "symlink"] + (getuid() == 0 ? ["device"] : []) }

    /// Every name a peer reads in the cloud, taken by something that is not a regular file:
    /// sync, status, peers and doctor all finish, and everything real still imports.
    @Test(.timeLimit(.minutes(1)), arguments: ["fifo", "socket", "folder", "symlink", "device"])
    func nothingNamedLikeACloudFileBlocksOrMisleads(_ kind: String) throws {
        guard Self.kinds.contains(kind) else { return }   // device nodes need root
        let cloud = try TestCloud()
        let writer = try cloud.peer("writer"), reader = try cloud.peer("reader")
        try saveNote(writer, "w1")
        _ = try writer.sync()
        _ = try writer.rollBaseline(force: true)
        try saveNote(writer, "w2")
        let location = try #require(writer.location)
        let stranger = "stranger~00000000-0000-0000-0000-00000000000f"
        try AtomicFile.makeDirectory(location.logDirectory(of: stranger))
        // A log, a receipt, a baseline copy and the content epoch, each a `kind`.
        try Self.makeSpecial(kind, at: location.logDirectory(of: stranger) + "/" + TransactionLog.fileName(number: 1))
        try Self.makeSpecial(kind, at: location.receiptPath(of: stranger))
        try Self.makeSpecial(kind, at: location.baselineDirectory + "/baseline.sync-conflict-20260101-120000-ABCDEFG.zip")
        try AtomicFile.makeDirectory(ContentEpoch.directory(location))
        try Self.makeSpecial(kind, at: location.contentEpochPath)

        let summary = try reader.sync()
        #expect(try noteKeys(reader) == ["w1", "w2"])
        #expect(summary.imported.quarantined.isEmpty, "not logs at all: ignored, not quarantined")
        _ = try ContainerReport.make(for: reader)
        let findings = try Doctor.examine(reader)
        #expect(findings.contains { $0.message.contains(stranger) && $0.message.contains(TransactionLog.fileName(number: 1).prefix(10)) },
                "\(findings.map(\.message))")
        #expect(findings.contains { $0.message.contains("sync-conflict") }, "\(findings.map(\.message))")
        #expect(findings.contains { $0.message.contains(".content/Notes.plist") }, "\(findings.map(\.message))")
        _ = try writer.sync()
    }

    /// A peer's `<ContentName>` folder that is a symbolic link to logs outside the cloud is
    /// never followed: nothing of it is imported, and doctor says what it is.
    @Test func aSymlinkedContentFolderIsNeverFollowed() throws {
        let cloud = try TestCloud()
        let writer = try cloud.peer("writer"), reader = try cloud.peer("reader")
        try saveNote(writer, "w1")
        let location = try #require(writer.location)
        // The writer's real folder moves outside the cloud; a link named like it stays.
        let outside = cloud.root + "/outside"
        try AtomicFile.makeDirectory(outside)
        let contentFolder = location.ubiquityRoot + "/" + writer.peerID + "/" + location.contentName
        #expect(rename(contentFolder, outside + "/Notes") == 0)
        #expect(symlink(outside + "/Notes", contentFolder) == 0)

        let summary = try reader.sync()
        #expect(summary.imported.applied.isEmpty && summary.imported.quarantined.isEmpty)
        #expect(try noteKeys(reader).isEmpty, "logs outside the cloud are never imported")
        let findings = try Doctor.examine(reader)
        #expect(findings.contains { $0.message.contains("symbolic link") && $0.message.contains(writer.peerID) }, "\(findings.map(\.message))")

        // The writer never writes through the link: it moves the link aside and writes its
        // logs into a real folder again (Docs/ContainerFormat.md, "What is read, and how").
        try saveNote(writer, "w2")
        let reclaimed = try writer.sync()
        #expect(reclaimed.exportError == nil && reclaimed.outboxPending == 0, "\(String(describing: reclaimed.exportError))")
        #expect(reclaimed.repaired == [1], "the log that went with the folder is written again")
        #expect(DirectoryEntry.names(outside + "/Notes/" + location.modelHash).filter { $0.hasPrefix("0000000002") }.isEmpty,
                "nothing written outside the cloud")
        _ = try reader.sync()
        #expect(try noteKeys(reader) == ["w1", "w2"])
    }

    /// A device whose own peer folder is a symbolic link writes nothing through it: it moves
    /// the link aside and writes into a real folder.
    @Test func aSymlinkedOwnPeerFolderIsNotWrittenThrough() throws {
        let cloud = try TestCloud()
        let writer = try cloud.peer("writer")
        let location = try #require(writer.location)
        let outside = cloud.root + "/elsewhere"
        try AtomicFile.makeDirectory(outside)
        try AtomicFile.makeDirectory(location.ubiquityRoot)
        #expect(symlink(outside, location.ubiquityRoot + "/" + writer.peerID) == 0)
        try saveNote(writer, "w1")
        let summary = try writer.sync()
        #expect(summary.exportError == nil && summary.outboxPending == 0, "\(String(describing: summary.exportError))")
        #expect(try #require(DirectoryEntry.at(location.peerDirectory(of: writer.peerID))).isDirectory)
        #expect(DirectoryEntry.names(outside).isEmpty, "nothing was written outside the cloud")
    }

    /// A folder or link named like a log in a device's own folder, numbered above what it
    /// knows, is no log: every command still works, and doctor reports it.
    @Test(arguments: ["folder", "symlink"])
    func aNonLogInTheOwnFolderDoesNotBrickTheDevice(_ kind: String) throws {
        let cloud = try TestCloud()
        var writer: UbiquityPeer? = try cloud.peer("writer")
        try saveNote(writer!, "w1")
        _ = try writer!.sync()
        let location = try #require(writer!.location)
        try Self.makeSpecial(kind, at: location.logDirectory(of: writer!.peerID) + "/" + TransactionLog.fileName(number: 7))
        writer!.close()
        writer = nil

        let reopened = try cloud.peer("writer")
        try saveNote(reopened, "w2")
        #expect(reopened.store.knowledge[reopened.peerID] == 2)
        _ = try reopened.sync()
        let findings = try Doctor.examine(reopened)
        #expect(findings.contains { $0.kind == .foreignFile && $0.message.contains(TransactionLog.fileName(number: 7).prefix(10)) },
                "\(findings.map(\.message))")
        let reader = try cloud.peer("reader")
        _ = try reader.sync()
        #expect(try noteKeys(reader) == ["w1", "w2"])
    }
}
