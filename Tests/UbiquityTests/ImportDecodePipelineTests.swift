import Foundation
import Testing
import UbiquityPlist
@testable import Ubiquity
@testable import UbiquityCore
@testable import UbiquitySync
import UbiquityTestSupport

/// Logs are decoded on a second core while the first chunk of the batch is merged
/// (`LogDecodePipeline`); everything else of the import stays in candidate order, and anything
/// out of the ordinary sends the import the one-thread way: the outcome must never depend on it.
@Suite("Import decodes logs on a second core with the same outcome as one thread")
struct ImportDecodePipelineTests {
    static let seed: UInt64 = 19_27

    /// What one import did, everything a user or a later import could see of it, as text. A
    /// reason naming this machine's clock reads the clock of its import: that number is left out.
    struct Outcome {
        var report: ImportReport
        var batches: [ObjectChanges]
        var fields: [String: [String]] = [:]

        init(report: ImportReport, batches: [ObjectChanges], lines: [String], dump: String, records: [String], copies: [String: [UInt8]]) {
            func withoutClock(_ text: String) -> String {
                text.replacingOccurrences(of: #"machine's clock \([0-9]+\)"#, with: "machine's clock (now)", options: .regularExpression)
            }
            self.report = report
            self.batches = batches
            fields["quarantined"] = report.quarantined.map { "\($0.path): \(withoutClock($0.reason))" }
            fields["lines"] = lines.map(withoutClock)
            fields["dump"] = [dump]
            fields["records"] = records.map(withoutClock)
            fields["quarantine copies"] = copies.keys.sorted().map { "\($0): \(copies[$0]!)" }
        }

        /// The first field that differs from `other`'s, with its first differing entry.
        func difference(from other: Outcome) -> String? {
            if report != other.report { return "reports: \(report) vs \(other.report)" }
            if batches != other.batches { return "batches: \(batches) vs \(other.batches)" }
            for key in fields.keys.sorted() where fields[key] != other.fields[key] {
                let (mine, theirs) = (fields[key]!, other.fields[key] ?? [])
                let index = (0..<min(mine.count, theirs.count)).first { mine[$0] != theirs[$0] } ?? min(mine.count, theirs.count)
                return "\(key) #\(index) of \(mine.count)/\(theirs.count): \(index < mine.count ? mine[index] : "-") vs \(index < theirs.count ? theirs[index] : "-")"
            }
            return nil
        }
    }

    /// One import by `reader`, with the pipeline (on any machine, one CPU too) or without it;
    /// `uses` collects what the pipeline did.
    static func importOnce(_ reader: UbiquityPeer, pipeline: Bool, batchSize: Int, quarantine: String,
                           uses: EventLog<Importer.PipelineUse>) throws -> Outcome {
        let lines = EventLog<String>()
        let logger = UbiquityLogger(level: .verbose, peerID: "reader", storeName: "Notes") { lines.append($0) }
        var importer = Importer(store: reader.store, location: try #require(reader.location), quarantineDirectory: quarantine, logger: logger)
        importer.pipelineMinimum = pipeline ? 2 : .max
        importer.decodesOnSecondCore = pipeline
        importer.onPipeline = { uses.append($0) }
        var batches: [ObjectChanges] = []
        let report = try importer.importAvailable(batchSize: batchSize) { batches.append($0) }
        let records = try reader.store.quarantined().map { "\($0.path) \($0.size) \($0.signature ?? "-") \($0.retryAfter.map { "\($0)" } ?? "-"): \($0.reason)" }
        var copies: [String: [UInt8]] = [:]
        for entry in DirectoryEntry.list(quarantine) { copies[entry.name] = try AtomicFile.read(quarantine + "/" + entry.name, limit: 1 << 24) }
        return Outcome(report: report, batches: batches, lines: lines.events, dump: try reader.dumpText(), records: records, copies: copies)
    }

    static func logPaths(_ peer: UbiquityPeer) throws -> [String] {
        let directory = try #require(peer.location).logDirectory(of: peer.peerID)
        return DirectoryEntry.list(directory).filter { TransactionLog.transactionNumber(inFileName: $0.name) != nil }
            .sorted { TransactionLog.transactionNumber(inFileName: $0.name)! < TransactionLog.transactionNumber(inFileName: $1.name)! }
            .map { directory + "/" + $0.name }
    }

    /// Four writers save (inserts, updates, deletes) and sync in a seeded order, so their logs
    /// depend on each other's: some peers' runs break in the batch's first round and wait for
    /// `order`'s later rounds. `d`'s last log but one is removed: its last waits for it.
    static func makeCloud() throws -> (TestCloud, [UbiquityPeer]) {
        let cloud = try TestCloud()
        let writers = try ["a", "b", "c", "d"].map { try cloud.peer($0, policy: nil) }
        var random = SeededGenerator(seed: seed)
        for step in 0..<90 {
            let writer = writers[Int(random.next() % 4)]
            let context = writer.newContext()
            for _ in 0..<(1 + Int(random.next() % 3)) {
                let key = "n\(random.next() % 25)"
                if let object = try context.object(GlobalID(entity: "Note", key: key)) {
                    if random.next() % 5 == 0 { context.delete(object) } else { try object.setValue(.string("t-\(step)-\(random.next() % 100)"), for: "title") }
                } else {
                    try context.insert("Note", key: key).setValue(.string("new-\(step)"), for: "title")
                }
            }
            try context.save()
            if random.next() % 3 == 0 { _ = try writer.sync() }
        }
        for writer in writers { _ = try writer.sync() }
        #expect(unlink(try logPaths(writers[3]).dropLast().last!) == 0)
        return (cloud, writers)
    }

    /// The same container imported by two fresh readers, one with the pipeline and one
    /// without, for each batch size: the outcomes must be equal.
    /// Returns what the pipeline did in each, with how many logs the import applied.
    static func compareFreshReaders(_ cloud: TestCloud, round: String) throws -> [(use: Importer.PipelineUse, applied: Int)] {
        var uses: [(use: Importer.PipelineUse, applied: Int)] = []
        for batchSize in [Int.max, 7] {
            let readers = try [false, true].map { try cloud.peer("r-\(round)-\(batchSize)-\($0)", policy: nil) }
            let used = EventLog<Importer.PipelineUse>()
            let outcomes = try zip(readers, [false, true]).map { reader, pipeline in
                try importOnce(reader, pipeline: pipeline, batchSize: batchSize, quarantine: cloud.root + "/quarantine-\(reader.peerID)", uses: used)
            }
            #expect(outcomes[0].report.applied.count > 20, "the import had something to apply")
            #expect(outcomes[0].difference(from: outcomes[1]) == nil, "round \(round), batches of \(batchSize), seed \(seed)")
            uses += used.events.map { ($0, outcomes[1].report.applied.count) }
        }
        return uses
    }

    @Test func theFirstChunkMergedWhileDecodingGivesTheOneThreadImport() throws {
        let (cloud, _) = try Self.makeCloud()
        let uses = try Self.compareFreshReaders(cloud, round: "clean")
        // Both batch sizes merged their first chunk while the later logs were decoded; in one
        // batch (no size limit), a log that was not the batch's next left the rest to `order`
        // (these writers' logs depend on each other's).
        guard case let .merged(logs, whileDecoding) = uses.first?.use, case let .merged(chunk, _) = uses.last?.use, uses.count == 2 else {
            Issue.record("the pipeline did not merge: \(uses)")
            return
        }
        #expect(logs == uses[0].applied && whileDecoding > 0 && whileDecoding < logs && chunk == 7, "\(uses)")
    }

    /// Damage of every kind an importer must survive: an altered log, a truncated one, a log
    /// under another author's name, garbage, and a log stamped a day ahead. The pipeline gives
    /// up on what it merged, and the import goes the one-thread way.
    @Test func damagedLogsSendTheImportTheOneThreadWay() throws {
        let (cloud, writers) = try Self.makeCloud()
        let (a, b, c) = (writers[0], writers[1], writers[2])
        let location = try #require(a.location)
        let altered = try Self.logPaths(b).dropLast().last!
        var bytes = try AtomicFile.read(altered, limit: 1 << 20)
        let title = try #require(bytes.indices.first { bytes[$0...].starts(with: Array("new-".utf8)) || bytes[$0...].starts(with: Array("t-".utf8)) })
        bytes[title] = UInt8(ascii: "k")
        try AtomicFile.write(bytes, to: altered)
        let truncated = try Self.logPaths(c)[2]
        let whole = try AtomicFile.read(truncated, limit: 1 << 20)
        try AtomicFile.write(Array(whole.prefix(60)), to: truncated)
        let forger = "mallory~00000000-0000-0000-0000-000000000001"
        try AtomicFile.makeDirectory(location.logDirectory(of: forger))
        try AtomicFile.write(try AtomicFile.read(try Self.logPaths(a)[0], limit: 1 << 20), to: location.logDirectory(of: forger) + "/" + TransactionLog.fileName(number: 1))
        try AtomicFile.write(Array("garbage that is not a plist".utf8), to: location.logDirectory(of: forger) + "/" + TransactionLog.fileName(number: 2))
        let ahead = "zahead~00000000-0000-0000-0000-000000000002"
        var log = try TransactionLog(decoding: try AtomicFile.read(try Self.logPaths(a)[0], limit: 1 << 20), model: cloud.model)
        log.peerID = ahead
        log.knowledge = KnowledgeVector([ahead: 1])
        log.stamp = Stamp(wallMilliseconds: Int64((Date().timeIntervalSince1970 + 2 * Stamp.maximumLead) * 1000), counter: 0, peerID: ahead)
        try AtomicFile.makeDirectory(location.logDirectory(of: ahead))
        try AtomicFile.write(log.encoded(format: .binary), to: location.logDirectory(of: ahead) + "/" + TransactionLog.fileName(number: 1))

        let uses = try Self.compareFreshReaders(cloud, round: "damaged")
        #expect(uses.map(\.use) == [.abandoned, .abandoned], "\(uses)")

        // Everything of the damage was there to decide on.
        let reader = try cloud.peer("check", policy: nil)
        let report = try reader.importAvailable()
        let reasons = report.quarantined.map(\.reason)
        #expect(reasons.contains { $0.contains("checksum does not match") }, "\(reasons)")
        #expect(reasons.contains { $0.contains("names author") }, "\(reasons)")
        #expect(reasons.filter { $0.contains("not a readable property list") }.count == 2, "\(reasons)")
        #expect(reasons.contains { $0.contains("ahead") }, "\(reasons)")
        #expect(report.missingPredecessors.count >= 1 && report.waiting > 0)
    }

    /// A log of another content epoch (a leftover of removed content) is skipped, not merged:
    /// the pipeline gives up on its chunk, and both imports skip it alike.
    @Test func aLogOfAnotherEpochSendsTheImportTheOneThreadWay() throws {
        let (cloud, writers) = try Self.makeCloud()
        let location = try #require(writers[0].location)
        let stale = "ystale~00000000-0000-0000-0000-000000000003"
        var log = try TransactionLog(decoding: try AtomicFile.read(try Self.logPaths(writers[0])[0], limit: 1 << 20), model: cloud.model)
        log.peerID = stale
        log.knowledge = KnowledgeVector([stale: 1])
        log.stamp = Stamp(wallMilliseconds: log.stamp.wallMilliseconds, counter: 0, peerID: stale)
        log.contentEpoch = ContentEpoch.epochID(remover: stale, generation: 1, date: 0)
        try AtomicFile.makeDirectory(location.logDirectory(of: stale))
        try AtomicFile.write(log.encoded(format: .binary), to: location.logDirectory(of: stale) + "/" + TransactionLog.fileName(number: 1))

        let uses = try Self.compareFreshReaders(cloud, round: "epoch")
        #expect(uses.map(\.use) == [.abandoned, .abandoned], "\(uses)")
        let report = try cloud.peer("check-epoch", policy: nil).importAvailable()
        #expect(report.ignored.contains { $0.contains(stale) } && report.quarantined.isEmpty, "\(report)")
    }

    /// The pipeline itself: results in order, never more than `ahead` decoded beyond the ones
    /// taken, on another thread.
    @Test func resultsComeInOrderWithinTheBound() {
        final class Probe: @unchecked Sendable {
            let lock = NSLock()
            var decoded = 0
            var threads: Set<UInt> = []
        }
        let probe = Probe()
        let pipeline = LogDecodePipeline(count: 500, chunk: 8, ahead: 24) { index in
            probe.lock.withLock {
                probe.decoded += 1
                probe.threads.insert(UInt(bitPattern: Int(pthread_self())))
            }
            return index * index
        }
        var outputs: [Int] = []
        var most = 0
        for index in 0..<500 {
            outputs.append(pipeline.outcome(at: index))
            usleep(UInt32((index * 7919) % 3) * 100)
            most = max(most, probe.lock.withLock { probe.decoded } - pipeline.outcomeCount)
        }
        #expect(pipeline.outcome(at: 3) == 9, "a result taken stays available")
        pipeline.finish()
        #expect(outputs == (0..<500).map { $0 * $0 })
        #expect(most <= 24, "at most `ahead` decoded beyond the ones taken")
        #expect(probe.threads.count == 1 && !probe.threads.contains(UInt(bitPattern: Int(pthread_self()))))
    }

    /// An import that ends early stops the worker: nothing is decoded after `finish`.
    @Test func finishingEarlyStopsTheWorker() {
        let decoded = EventLog<Int>()
        let pipeline = LogDecodePipeline(count: 1_000, chunk: 4, ahead: 8) { index in
            decoded.append(index)
            return index
        }
        #expect(pipeline.outcome(at: 0) == 0)
        pipeline.finish()
        let count = decoded.events.count
        usleep(20_000)
        #expect(decoded.events.count == count && count <= 16)
    }
}
