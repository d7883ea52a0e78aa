import Foundation
import Testing
@testable import Ubiquity
import UbiquitySimulation
import UbiquityTestSupport

/// iCloud delivers a file a second time as `name 2.ext` beside it. A copy of a log is read
/// only when the log itself is missing; its author deletes it once that loses nothing, and
/// `doctor` names it for what it is. (Before, nothing deleted a copy and doctor called it a
/// foreign file.)
@Suite("Duplicate copies of logs and receipts")
struct DuplicateCopyTests {
    /// `0000000001-<UUID>.1.cdt` → `0000000001-<UUID> N.1.cdt`.
    func copyName(_ name: String, _ number: Int = 2) -> String {
        let dot = name.firstIndex(of: ".")!
        return String(name[..<dot]) + " \(number)" + String(name[dot...])
    }

    func folder(_ peer: UbiquityPeer) throws -> String { try #require(peer.location).logDirectory(of: peer.peerID) }

    func exists(_ path: String) -> Bool { FileManager.default.fileExists(atPath: path) }

    func converge(_ peers: [UbiquityPeer]) throws {
        for _ in 0..<3 { for peer in peers { _ = try peer.sync() } }
        #expect(Set(try peers.map { try $0.mergeStateText() }).count == 1, "peers converge")
    }

    @Test func onlyNumberedCopiesOfLogsAndReceiptsAreCopies() {
        let log = TransactionLog.fileName(number: 7)
        let stem = String(log.dropLast(6))   // without ".1.cdt"
        #expect(DuplicateCopy.original(of: "\(stem) 2.1.cdt") == log)
        #expect(DuplicateCopy.original(of: "\(stem) 13.1.cdt") == log)
        #expect(DuplicateCopy.original(of: "\(stem).1 2.cdt") == log, "the number before the last extension")
        #expect(DuplicateCopy.original(of: "\(stem) 2 3.1.cdt") == log, "a copy of a copy")
        #expect(DuplicateCopy.original(of: "receipt" + String(repeating: " 2", count: 6) + ".0.cdt") == "receipt.0.cdt", "a chain of copies")
        #expect(DuplicateCopy.original(of: "receipt 2.0.cdt") == "receipt.0.cdt")
        #expect(DuplicateCopy.original(of: "receipt.0 3.cdt") == "receipt.0.cdt")
        for hostile in [log, "receipt.0.cdt", "\(stem) 1.1.cdt", "\(stem) 02.1.cdt", "\(stem) 10000.1.cdt", "\(stem)  2.1.cdt",
                        "\(stem)\t2.1.cdt", "\(stem) 2 .1.cdt", "\(stem) x.1.cdt", "\(stem) -2.1.cdt", " 2.1.cdt", "../\(stem) 2.1.cdt",
                        "\(stem) 2.2.cdt", "receipt 2.1.cdt", "receipt 2.0.cdt.nosync", "baseline 2.zip", "Notes 2.plist",
                        "\(stem.dropFirst()) 2.1.cdt", "\(stem)" + String(repeating: " 2", count: 40) + ".1.cdt", "\(stem) 2.1.cdt 2.cdt", "é \(stem) 2.1.cdt"] {
            #expect(DuplicateCopy.original(of: hostile) == nil, "\(hostile.debugDescription)")
        }
    }

    /// Identical copies of a log and of the receipt: readers apply the log once and never the
    /// copies; the author deletes them at its next sync; doctor names them meanwhile.
    @Test func identicalCopiesAreIgnoredNamedAndDeletedByTheirAuthor() throws {
        let cloud = try TestCloud()
        let writer = try cloud.peer("writer"), reader = try cloud.peer("reader")
        for key in ["n1", "n2"] { try saveNote(writer, key) }
        _ = try writer.sync()
        let directory = try folder(writer)
        let log = try logNames(of: writer.peerID, at: writer).sorted()[0]
        let copies = [directory + "/" + copyName(log), directory + "/" + copyName(log, 3), directory + "/receipt 2.0.cdt"]
        try FileManager.default.copyItem(atPath: directory + "/" + log, toPath: copies[0])
        try FileManager.default.copyItem(atPath: directory + "/" + log, toPath: copies[1])
        try FileManager.default.copyItem(atPath: directory + "/receipt.0.cdt", toPath: copies[2])

        let summary = try reader.sync()
        #expect(summary.imported.applied.map(\.number) == [1, 2], "each log once: \(summary.imported.applied)")
        #expect(copies.allSatisfy(exists), "a reader never deletes in another peer's folder")
        let findings = try Doctor.examine(reader).filter { $0.kind == .duplicateCopy }
        #expect(findings.count == 3, "\(findings.map(\.message))")
        #expect(findings.allSatisfy { $0.message.contains("is a duplicate copy of") && $0.message.contains("the same bytes") })
        #expect(findings.contains { $0.message.contains(copyName(log)) && $0.message.contains("of \(log)") })
        #expect(!(try Doctor.examine(reader)).contains { $0.kind == .foreignFile })

        let collected = try writer.sync()
        #expect(Set(collected.garbage?.deletedCopies ?? []) == Set(copies.map { ($0 as NSString).lastPathComponent }))
        #expect(!copies.contains(where: exists), "the author deletes copies that hold nothing more than the files they copy")
        #expect(try logNames(of: writer.peerID, at: writer).count == 2, "the logs stay")
        #expect(try reader.dumpText() == writer.dumpText())
        #expect(try Doctor.examine(reader).filter { $0.kind == .duplicateCopy }.isEmpty)
    }

    /// A copy with other bytes than its log (a damaged second delivery): never read, kept by
    /// its author until the transaction itself is collected, then deleted with the log.
    @Test func aCopyWithOtherBytesGoesOnlyWithItsTransaction() throws {
        let cloud = try TestCloud()
        let manual: BaselinePolicy? = nil
        let writer = try cloud.peer("writer", policy: manual), reader = try cloud.peer("reader", policy: manual)
        for key in ["n1", "n2"] { try saveNote(writer, key) }
        let directory = try folder(writer)
        let log = try logNames(of: writer.peerID, at: writer).sorted()[0]
        let copy = directory + "/" + copyName(log)
        let bytes = try AtomicFile.read(directory + "/" + log, limit: 1 << 20)
        try AtomicFile.write(Array(bytes.prefix(bytes.count / 2)), to: copy)

        #expect(try reader.sync().imported.applied.map(\.number) == [1, 2])
        #expect(try reader.store.quarantined().isEmpty, "the copy is not read: the log is")
        let finding = try #require(try Doctor.examine(reader).first { $0.kind == .duplicateCopy })
        #expect(finding.message.contains("other bytes"), "\(finding.message)")

        #expect(writer.collectGarbage(now: Date()).deletedCopies.isEmpty, "no baseline holds transaction 1 yet")
        #expect(exists(copy))
        guard case .rolled = try writer.rollBaseline(force: true) else {
            Issue.record("the writer rolls a baseline")
            return
        }
        _ = try reader.sync()   // its receipt: applied, and seen held by the baseline
        let report = writer.collectGarbage(now: Date())
        #expect(report.deletedCopies == [copyName(log)] && report.deleted.count == 2, "\(report)")
        #expect(!exists(copy))
        let newcomer = try cloud.peer("newcomer", policy: manual)
        _ = try newcomer.sync()
        #expect(try noteKeys(newcomer) == ["n1", "n2"], "nothing lost")
    }

    /// The copy is the only delivery (the log under its name never arrived): readers read the
    /// copy in its place — nothing waits for a missing predecessor — and nobody deletes it
    /// while it is the only file of its transaction. Its author, holding the log, writes it
    /// again; the copy then reads as the log and goes.
    @Test func aCopyOfAMissingLogIsReadInItsPlaceAndKept() throws {
        let cloud = try TestCloud()
        let manual: BaselinePolicy? = nil
        let writer = try cloud.peer("writer", policy: .apple), reader = try cloud.peer("reader", policy: .apple)
        for key in ["n1", "n2", "n3"] { try saveNote(writer, key) }
        let directory = try folder(writer)
        let log = try logNames(of: writer.peerID, at: writer).sorted()[1]
        let copy = directory + "/" + copyName(log)
        #expect(rename(directory + "/" + log, copy) == 0)

        let summary = try reader.sync()
        #expect(summary.imported.applied.map(\.number) == [1, 2, 3], "the copy stands in for log 2: \(summary.imported)")
        #expect(summary.imported.waiting == 0)
        #expect(try noteKeys(reader) == ["n1", "n2", "n3"])
        #expect(exists(copy), "a reader never deletes it")
        let finding = try #require(try Doctor.examine(reader).first { $0.kind == .duplicateCopy })
        #expect(finding.message.contains("is not there") && finding.message.contains("read in its place as transaction 2"), "\(finding.message)")
        #expect(!(try Doctor.examine(reader)).contains { $0.kind == .missingPredecessor })

        // An author that no longer keeps the log's copy cannot write it again: the duplicate
        // is all there is, and it stays until the transaction is collected.
        try writer.store.forgetSent(2)
        _ = try writer.sync()
        #expect(exists(copy) && !exists(directory + "/" + log))
        let newcomer = try cloud.peer("newcomer", policy: manual)
        #expect(try newcomer.sync().imported.applied.map(\.number) == [1, 2, 3])
        try converge([writer, reader, newcomer])

        // Written again by an author that keeps it: the copy now reads as the log, and goes.
        let other = try cloud.peer("other", policy: .apple)
        try saveNote(other, "o1")
        let otherFolder = try folder(other)
        let otherLog = try logNames(of: other.peerID, at: other).sorted()[0]
        #expect(rename(otherFolder + "/" + otherLog, otherFolder + "/" + copyName(otherLog)) == 0)
        _ = try other.sync()
        #expect(exists(otherFolder + "/" + otherLog), "the author wrote its log again from its copy")
        #expect(!exists(otherFolder + "/" + copyName(otherLog)), "and deleted the duplicate, which held nothing more")
        try converge([writer, reader, other])
    }

    /// Three devices behind emulated iCloud daemons that deliver every file twice, a quarter
    /// of the time as `name 2.ext` (and copies of those copies as they travel on): every device
    /// converges on every save, and once all is settled no copy of a log or receipt is left in
    /// the cloud or any device's mirror — each author deleted those in its folder.
    @Test func copiesTheDaemonsMakeAreDeletedByTheirAuthors() throws {
        let scenario = try ScenarioParser.parse("""
            scenario duplicate-copies
            about Every transfer is delivered twice, some as copies: all converge and the authors delete the copies.
            seed 5
            devices iphone ipad mac
            baseline threshold=10 grace=1d
            faults delay=1s..30s duplicate=1

            all launch
            wait 5m
            repeat 6
              iphone insert Note i{i} title="from the iPhone"
              iphone save
              mac insert Note m{i} title="from the Mac"
              mac save
              wait 2m
            end
            settle
            expect converged
            ipad expect count Note 12
            """, source: "duplicate-copies")
        var options = try ScenarioFixtures.options()
        let work = options.workDirectory ?? NSTemporaryDirectory() + "ubiquity-duplicates-" + UUID().uuidString
        options.workDirectory = work
        defer { try? FileManager.default.removeItem(atPath: work) }
        let result = try ScenarioRunner.run(scenario, options: options)
        #expect(result.passed, "\(result.text)")
        #expect(result.transfers.duplicates > 20, "\(result.transfers.line)")
        let walker = try #require(FileManager.default.enumerator(atPath: work))
        var left: [String] = []
        while let relative = walker.nextObject() as? String {
            if DuplicateCopy.original(of: (relative as NSString).lastPathComponent) != nil { left.append(relative) }
        }
        #expect(left.isEmpty, "copies left: \(left)")
    }

    /// Names shaped like copies that are not a log's copy stay foreign; a folder or a damaged
    /// file named like a copy of a missing log is never applied, and stops nothing else.
    @Test func hostileCopiesAreNeverTakenForLogs() throws {
        let cloud = try TestCloud()
        let writer = try cloud.peer("writer"), reader = try cloud.peer("reader")
        for key in ["n1", "n2"] { try saveNote(writer, key) }
        let directory = try folder(writer)
        let logs = try logNames(of: writer.peerID, at: writer).sorted()
        let third = TransactionLog.fileName(number: 3)
        try AtomicFile.write(Array("not a log".utf8), to: directory + "/" + copyName(third))   // stands in for 3: quarantined
        try FileManager.default.createDirectory(atPath: directory + "/" + copyName(logs[0], 4), withIntermediateDirectories: false)
        try FileManager.default.copyItem(atPath: directory + "/" + logs[0], toPath: directory + "/" + String(logs[0].dropLast(6)) + " 02.1.cdt")

        let summary = try reader.sync()
        #expect(summary.imported.applied.map(\.number) == [1, 2])
        #expect(summary.imported.quarantined.count == 1, "the damaged stand-in is set aside like a damaged log: \(summary.imported)")
        let findings = try Doctor.examine(reader)
        #expect(findings.contains { $0.kind == .foreignFile && $0.message.contains(" 02.1.cdt") }, "\(findings.map(\.message))")
        #expect(findings.contains { $0.kind == .foreignFile && $0.message.contains(copyName(logs[0], 4)) && $0.message.contains("folder") },
                "\(findings.map(\.message))")
        try saveNote(writer, "n3")
        _ = try writer.sync()
        #expect(exists(directory + "/" + copyName(third)), "a copy with other bytes than log 3 stays until transaction 3 is collected")
        _ = try reader.sync()
        #expect(try noteKeys(reader) == ["n1", "n2", "n3"], "log 3 under its name is read; the damaged stand-in stops nothing")
    }
}
