import Foundation
import Testing
@testable import Ubiquity
import UbiquityTestSupport

/// What a file-sync engine leaves in the cloud — temporary files, conflict copies, partial
/// files, two machines writing as one peer — is never imported and `doctor` says what it is.
@Suite("File-sync engines' files in the cloud")
struct FileSyncArtifactTests {
    @Test func namesOfEveryEngineAreClassified() {
        let log = TransactionLog.fileName(number: 7)
        let base = String(log.dropLast(4))   // without ".cdt"
        #expect(SyncArtifact.classify(log) == nil)
        #expect(SyncArtifact.classify("receipt.0.cdt") == nil)
        #expect(SyncArtifact.classify(".\(log).1a2b3c4d.nosync") == nil, "our own temporary files are not a sync tool's")
        #expect(SyncArtifact.classify(".syncthing.\(log).tmp") == .temporary(engine: "Syncthing"))
        #expect(SyncArtifact.classify("~syncthing~\(log).tmp") == .temporary(engine: "Syncthing"))
        #expect(SyncArtifact.classify("\(log).part") == .temporary(engine: "a download in progress"))
        #expect(SyncArtifact.classify(".\(log).~3f2a1b") == .temporary(engine: "Nextcloud"))
        #expect(SyncArtifact.classify(".\(log).Xy12Zq") == .temporary(engine: "a file-sync tool"), "rsync's shape")
        #expect(SyncArtifact.classify("\(base).sync-conflict-20260101-120000-ABCDEFG.cdt") == .conflictCopy(of: log, engine: "Syncthing"))
        #expect(SyncArtifact.classify("receipt.0.sync-conflict-20260101-120000-ABCDEFG.cdt") == .conflictCopy(of: "receipt.0.cdt", engine: "Syncthing"))
        #expect(SyncArtifact.classify("baseline.sync-conflict-20260101-120000-ABCDEFG.zip") == .conflictCopy(of: "baseline.zip", engine: "Syncthing"))
        #expect(SyncArtifact.classify("Notes.sync-conflict-20260101-120000-ABCDEFG.plist") == .conflictCopy(of: "Notes.plist", engine: "Syncthing"))
        #expect(SyncArtifact.classify("\(base) (ann's conflicted copy 2026-01-01).cdt") == .conflictCopy(of: log, engine: "Dropbox"))
        #expect(SyncArtifact.classify("Notes (conflicted copy 2026-01-01 101010).plist") == .conflictCopy(of: "Notes.plist", engine: "Nextcloud"))
        #expect(SyncArtifact.classify("baseline (iCloud conflict d1 28536).zip") == .conflictCopy(of: "baseline.zip", engine: "iCloud"))
        #expect(SyncArtifact.classify("Notes (2).plist") == nil, "parentheses alone are not a conflict")
        for name in [log, "receipt.0.cdt", "baseline.zip"] {
            #expect(TransactionLog.transactionNumber(inFileName: "\(name).sync-conflict-x") == nil)
        }
    }

    @Test("ASCII names are judged on bytes exactly as the String rules judge them")
    func byteRulesAgreeWithStringRules() {
        // Names built from the engines' patterns and the characters around them, shuffled.
        let parts = [".sync-conflict-", " (", ")", ".", "~", ".~", "syncthing", ".syncthing.", "~syncthing~", ".tmp", ".!sync", ".unison.",
                     ".part", ".partial", ".crdownload", ".download", ".nosync", "Conflict", "iCloud conflict ", "'s conflicted copy",
                     "case conflict", "a", "Z", "-", "0", "\r", "\n", "\r\n", " ", "é", "e\u{301}"]
        for seed in SeededGenerator.testSeeds([1, 2, 3]) {
            var random = SeededGenerator(seed: seed)
            for _ in 0..<5_000 {
                let name = (0..<Int.random(in: 1...6, using: &random)).map { _ in parts.randomElement(using: &random)! }.joined()
                #expect(SyncArtifact.classify(name) == SyncArtifact.classifyByCharacters(name), "seed \(seed): \(name.debugDescription)")
            }
        }
        for name in [".", "..", ".~", "", " (", " ()", "a (conflict", "x.sync-conflict-", "x.sync-conflict-.", "é (conflict).zip", "é.sync-conflict-1.cdt"] {
            #expect(SyncArtifact.classify(name) == SyncArtifact.classifyByCharacters(name), "\(name.debugDescription)")
        }
        #expect(SyncArtifact.classify("é.sync-conflict-20260101-120000-X.cdt") == .conflictCopy(of: "é.cdt", engine: "Syncthing"))
        #expect(SyncArtifact.classify("x.sync-conflict-") == .conflictCopy(of: "x", engine: "Syncthing"))
        #expect(SyncArtifact.classify("a (Case Conflict)") == .conflictCopy(of: "a", engine: "Dropbox"))
        #expect(SyncArtifact.classify(".") == nil && SyncArtifact.classify(".a") == .temporary(engine: "a file-sync tool"))
    }

    /// A peer folder holding a Syncthing temporary file with a whole log inside, conflict
    /// copies with valid (but different) logs inside, and copies of the receipt, baseline and
    /// content epoch: only the real logs are applied, each once, and doctor names every copy
    /// that is never read. (A conflict copy of the baseline is read like the baseline; this one
    /// holds nothing the baseline lacks, so the reader deletes it.)
    @Test func temporaryFilesAndConflictCopiesAreNeverImported() throws {
        let cloud = try TestCloud()
        let writer = try cloud.peer("writer"), reader = try cloud.peer("reader")
        for key in ["n1", "n2"] { try saveNote(writer, key) }
        _ = try writer.sync()   // its receipt
        _ = try writer.rollBaseline(force: true)
        try saveNote(writer, "n3")
        try saveNote(reader, "r1")   // a store with data of its own imports logs rather than the baseline
        let location = try #require(writer.location)
        let folder = location.logDirectory(of: writer.peerID)
        let logs = try logNames(of: writer.peerID, at: writer).sorted()
        #expect(logs.count == 3)

        // Log 3 is still arriving: it sits in Syncthing's temporary file.
        rename(folder + "/" + logs[2], folder + "/.syncthing." + logs[2] + ".tmp")
        // A valid log 2 with another title, kept as conflict copies by Syncthing and Dropbox.
        var forged = try TransactionLog(decoding: try AtomicFile.read(folder + "/" + logs[1], limit: 1 << 20), model: cloud.model)
        forged.inserted[0].values["title"] = .string("from a conflict copy")
        let base = String(logs[1].dropLast(4))
        try AtomicFile.write(forged.encoded(format: .binary), to: folder + "/\(base).sync-conflict-20260101-120000-ABCDEFG.cdt")
        try AtomicFile.write(forged.encoded(format: .binary), to: folder + "/\(base) (ann's conflicted copy 2026-01-01).cdt")
        try AtomicFile.write(try AtomicFile.read(location.receiptPath(of: writer.peerID), limit: 1 << 20),
                             to: folder + "/receipt.0.sync-conflict-20260101-120000-ABCDEFG.cdt")
        let baselineCopy = location.baselineDirectory + "/baseline.sync-conflict-20260101-120000-ABCDEFG.zip"
        try AtomicFile.write(try AtomicFile.read(location.baselinePath, limit: 1 << 24), to: baselineCopy)
        // A removal's epoch that lost the name to another (the content was never removed here):
        // a copy is never read, so it removes nothing.
        let lostEpoch = PlistValue.dictionary(["format": .integer(1), "epoch": .string(UUID().uuidString), "date": .real(0)])
        try AtomicFile.makeDirectory(ContentEpoch.directory(location))
        try AtomicFile.write(PlistSeam.encode(lostEpoch, format: .xml), to: ContentEpoch.directory(location) + "/Notes.sync-conflict-20260101-120000-ABCDEFG.plist")
        // A temporary file of a transfer that died two hours ago.
        let stale = folder + "/.syncthing.receipt.0.cdt.tmp"
        try AtomicFile.write([1, 2, 3], to: stale)
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(-7_200)], ofItemAtPath: stale)

        let first = try reader.sync()
        #expect(first.contentRemoved == false, "a copy of the content epoch is no removal")
        #expect(try reader.store.contentEpoch() == nil)
        #expect(first.imported.applied.map(\.number) == [1, 2], "only the real logs: \(first.imported.applied)")
        #expect(first.imported.ignored.count == 5, "the temporary files and the log copies are ignored: \(first.imported.ignored)")
        #expect(try reader.store.snapshot(of: GlobalID(entity: "Note", key: "n2"))?.values["title"] == .string("n2"))
        #expect(!FileManager.default.fileExists(atPath: baselineCopy), "the baseline's copy holds nothing the baseline lacks: deleted")

        let findings = try Doctor.examine(reader)
        let copies = findings.filter { $0.kind == .conflictCopy }
        #expect(copies.count == 4, "the log copies, the receipt's and the epoch's: \(copies.map(\.message))")
        #expect(copies.contains { $0.message.contains("two machines wrote") && $0.message.contains("Syncthing") })
        #expect(copies.contains { $0.message.contains("Dropbox") })
        #expect(copies.contains { $0.message.hasPrefix(".content/") && $0.message.contains("the copy is never read") })
        let temporaries = findings.filter { $0.kind == .staleTemporaryFile }
        #expect(temporaries.count == 1 && temporaries[0].message.contains("receipt.0.cdt.tmp") && !temporaries[0].fixable,
                "the transfer under way is not a problem; the dead one is, and only the sync tool may remove it: \(temporaries.map(\.message))")
        #expect(!findings.contains { $0.kind == .foreignFile }, "\(findings.map(\.message))")
        #expect(!findings.contains { $0.kind == .missingPredecessor }, "nothing waits for the log in transfer")

        // The transfer finishes: log 3 is applied, once.
        rename(folder + "/.syncthing." + logs[2] + ".tmp", folder + "/" + logs[2])
        let second = try reader.sync()
        #expect(second.imported.applied.map(\.number) == [3])
        #expect(try reader.sync().imported.applied.isEmpty)
        _ = try writer.sync()
        #expect(try reader.dumpText() == writer.dumpText())
    }

    /// A tool that shows a file before it has all arrived (no atomic rename): the reader sets
    /// it aside, and takes it once it is whole; doctor stops reporting it then.
    @Test func aPartiallyDeliveredLogIsQuarantinedThenImportedOnceWhole() throws {
        let cloud = try TestCloud()
        let writer = try cloud.peer("writer"), reader = try cloud.peer("reader")
        for key in ["n1", "n2"] { try saveNote(writer, key) }
        let folder = try #require(writer.location).logDirectory(of: writer.peerID)
        let second = folder + "/" + (try logNames(of: writer.peerID, at: writer).sorted()[1])
        let whole = try AtomicFile.read(second, limit: 1 << 20)
        try AtomicFile.write(Array(whole.prefix(whole.count / 2)), to: second)

        let first = try reader.sync()
        #expect(first.imported.applied.map(\.number) == [1])
        #expect(first.imported.quarantined.count == 1)
        #expect(try Doctor.examine(reader).contains { $0.kind == .unreadableFile })

        try AtomicFile.write(whole, to: second)
        let then = try reader.sync()
        #expect(then.imported.applied.map(\.number) == [2])
        #expect(try reader.store.quarantined().isEmpty, "the record goes once the file is whole")
        #expect(!(try Doctor.examine(reader)).contains { $0.kind == .unreadableFile })
        #expect(try reader.dumpText() == writer.dumpText())
    }

    /// A device folder copied to a second machine: both write as one peer. Doctor says so.
    @Test func twoMachinesRunningOnePeerAreReported() throws {
        let machines = try TestMachines(2)
        let original = try machines.peer("phone", on: 0)
        original.close()
        try FileManager.default.copyItem(atPath: machines.machines[0].devicePath("phone"), toPath: machines.machines[1].devicePath("phone"))
        // The copy remembers the first machine's cloud folder: it is told, on purpose, to use this machine's.
        _ = try Device.moveCloud(to: machines.machines[1].cloud, at: machines.machines[1].devicePath("phone"))
        let here = try machines.peer("phone", on: 0), there = try machines.peer("phone", on: 1)
        #expect(here.peerID == there.peerID)
        try saveNote(here, "here")
        try saveNote(there, "there")
        machines.settle()
        let findings = try Doctor.examine(here)
        #expect(findings.contains { $0.kind == .duplicatePeer && $0.message.contains("2 logs for transaction 1") }, "\(findings.map(\.message))")
    }
}
